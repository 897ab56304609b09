import type { Component } from "../agent/component.js";

/** What a team knows of a member beyond the Component interface: a Team exposes its members. */
export interface MemberLike extends Component {
  readonly description?: string;
  readonly members?: readonly Component[];
}

/** The id the leader names a member by (agno's get_member_id: the member's own id). */
export const memberId = (member: Component): string => member.ref.id;

/** The member named `id`, searched in the team and, depth first, in its sub-teams (as agno's _find_member_by_id). */
export function findMember(members: readonly Component[], id: string): Component | undefined {
  for (const member of members) {
    if (memberId(member) === id) return member;
    const nested = (member as MemberLike).members;
    if (nested) {
      const found = findMember(nested, id);
      if (found) return found;
    }
  }
  return undefined;
}

/** A member's display name: its name, else its id. */
export const memberName = (member: Component): string => member.ref.name ?? member.ref.id;
