import { useEffect, useState } from "preact/hooks";
import { request } from "./api.js";

/** An image of a stored run, as agno records it: inline base64, a reference into media storage, or a URL. */
export interface ImageRecord {
  id?: string;
  url?: string;
  content?: string;
  mime_type?: string;
  media_reference?: { storage_key?: string } | null;
}

/**
 * One image. Inline bytes become a data: URL; stored ones are fetched with the credential (the
 * media route needs it, an <img> cannot send it) and shown from a blob: URL; a URL of another
 * origin is a link, as the page's Content-Security-Policy loads images from its own origin only.
 */
function RunImage(props: { sessionId: string; image: ImageRecord; alt: string }) {
  const { image } = props;
  const key = image.media_reference?.storage_key;
  const path = key
    ? `/sessions/${encodeURIComponent(props.sessionId)}/media/${key.split("/").map(encodeURIComponent).join("/")}`
    : image.url?.startsWith("/")
      ? image.url
      : undefined;
  const [src, setSrc] = useState<string | undefined>(
    image.content ? `data:${image.mime_type ?? "image/png"};base64,${image.content}` : undefined,
  );
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (src || !path) return;
    let url: string | undefined;
    let live = true;
    request(path)
      .then((res) => res.blob())
      .then(
        (blob) => {
          url = URL.createObjectURL(blob);
          if (live) setSrc(url);
          else URL.revokeObjectURL(url);
        },
        () => live && setFailed(true),
      );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [path]);
  if (src) return <img src={src} alt={props.alt} />;
  if (image.url && !path)
    return (
      <a href={image.url} rel="noreferrer noopener" target="_blank">
        {props.alt}
      </a>
    );
  return <span class="meta">{failed ? `${props.alt}: could not load` : `${props.alt}: loading…`}</span>;
}

/** A run's images, its input's first, then its output's. */
export function RunMedia(props: { sessionId: string; input?: ImageRecord[]; output?: ImageRecord[] }) {
  const all = [
    ...(props.input ?? []).map((image, i) => ({ image, alt: `Input image ${i + 1}` })),
    ...(props.output ?? []).map((image, i) => ({ image, alt: `Output image ${i + 1}` })),
  ];
  if (all.length === 0) return null;
  return (
    <ul class="attachments" aria-label="Images">
      {all.map(({ image, alt }, i) => (
        <li key={image.id ?? i}>
          <RunImage sessionId={props.sessionId} image={image} alt={alt} />
        </li>
      ))}
    </ul>
  );
}
