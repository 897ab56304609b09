/**
 * Joins shown strings into a page's text by where they land: a run that starts off the previous
 * run's line starts a new line; one that starts further along the same line than a tracking gap
 * gets a space (PDFs position words rather than draw spaces, and TJ kerns large gaps).
 */
export class TextBuilder {
  private out: string[] = [];
  private has = false;
  private ex = 0;
  private ey = 0;
  private dx = 1;
  private dy = 0;
  private size = 0;

  /** Text drawn outside `box` (the page's visible area) is left out, as viewers show none of it. */
  constructor(private readonly box?: readonly [number, number, number, number]) {}

  /** A run of text from (sx, sy) to (ex, ey), `size` high, written along (dx, dy). */
  add(text: string, sx: number, sy: number, ex: number, ey: number, size: number, dx: number, dy: number): void {
    const b = this.box;
    if (b && (Math.max(sx, ex) < b[0] || Math.min(sx, ex) > b[2] || Math.max(sy, ey) < b[1] || Math.min(sy, ey) > b[3]))
      return;
    if (this.has) {
      const vx = sx - this.ex;
      const vy = sy - this.ey;
      const along = vx * this.dx + vy * this.dy;
      const across = vy * this.dx - vx * this.dy;
      const h = Math.max(this.size, 1e-6);
      const last = this.out[this.out.length - 1]!;
      const white = /\s$/.test(last) || /^\s/.test(text);
      if (Math.abs(across) > 0.6 * h || dx * this.dx + dy * this.dy < 0.9) this.out.push("\n");
      // a gap wider than tracking, or a jump back to an earlier spot (a new column, overprinting)
      else if ((along > 0.1 * h || along < -1.5 * h) && !white) this.out.push(" ");
    }
    this.out.push(text);
    this.has = true;
    this.ex = ex;
    this.ey = ey;
    this.dx = dx;
    this.dy = dy;
    this.size = size;
  }

  /** The page's text: lines without trailing blanks, no blank lines at either end. */
  text(): string {
    return this.out
      .join("")
      .split("\n")
      .map((l) => l.replace(/[ \t\u00a0]+$/, ""))
      .join("\n")
      .trim();
  }
}
