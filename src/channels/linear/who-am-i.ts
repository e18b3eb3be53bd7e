/**
 * Who the daemon speaks as on Linear: the API key's owner (the viewer) and
 * the workspace, asked in one request at start and by `draft-review setup`.
 */
import type { ChannelIdentity } from "../channel.js";
import { failureOf, type LinearContext } from "./context.js";

/** The viewer and the workspace in one request (the SDK's `viewer` model would need a second for the organization). */
export const WHO_AM_I_QUERY = "query LinearWhoAmI { viewer { id name email } organization { name urlKey } }";

type WhoAmIData = { viewer: { id: string; name: string; email: string }; organization: { name: string; urlKey: string } };

/** "<name> (<email>) in <organization>", or why not; a refused key sets `credentialsRefused`. */
export async function linearWhoAmI(ctx: LinearContext): Promise<ChannelIdentity> {
  try {
    const answer = await ctx.client().client.rawRequest<WhoAmIData, Record<string, never>>(WHO_AM_I_QUERY);
    const { viewer, organization } = answer.data as WhoAmIData;
    return { ok: true, speaksAs: `${viewer.name} (${viewer.email}) in ${organization.name}` };
  } catch (error) {
    const f = failureOf(ctx, error);
    if (f.credentials) return { ok: false, credentialsRefused: true, reason: f.reason };
    return { ok: false, credentialsRefused: false, reason: `could not ask Linear who the key belongs to: ${f.reason}` };
  }
}
