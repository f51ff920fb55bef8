import { resultJson, textBlock } from './model-content';
import type { ReadAnswer } from './read-answer';
import type { SingleResult } from './single-answer';

/** How a write through `invoke_tool` is confirmed; a tool published directly says its own way. */
export const INVOKE_TOOL_CONFIRM = 'call invoke_tool again with the same name, server and arguments plus `confirm`';

/**
 * The answer of a destructive write called without `confirm` (architecture §11.2): nothing was
 * called; it says what would be called, with the argument names and never their values, and
 * carries the single-use `confirmation` token to send back as `confirm`. Not an error: the tool
 * is working, so `isError` is false.
 */
export function confirmationResult(
  tool: string,
  server: string,
  argumentNames: string[],
  token: string,
  ttlSeconds: number,
  howToConfirm = INVOKE_TOOL_CONFIRM,
): SingleResult {
  const answer: ReadAnswer = { tool, server, status: 'confirmation_required' };
  const value = {
    ok: false,
    ...answer,
    summary: { tool, server, argument_names: argumentNames },
    message: `This tool may change or delete data. To run it, ${howToConfirm} set to \`confirmation\` (single use, within ${ttlSeconds} s).`,
    confirmation: token,
    confirmation_expires_in_seconds: ttlSeconds,
  };
  const json = JSON.stringify(value);
  return { answer, wire: resultJson([JSON.stringify(textBlock(json))], json, false) };
}
