// Whether a file's text is a config at all, and how to show untrusted text on a terminal. Pure.

/** How much of the text is looked at to tell a config from binary data. */
const SAMPLE = 64 * 1024;

/**
 * Why a decoded file is not a text config (a binary, an image, a compressed file), or undefined
 * when it is text. A NUL character is never in a config; many other control characters or bytes
 * that are not UTF-8 (decoded as U+FFFD) in the first 64 KiB mean binary data, while a few stray
 * ones (a Latin-1 `é` in a comment) do not.
 */
export function notTextReason(text: string): string | undefined {
  const sample = text.length > SAMPLE ? text.slice(0, SAMPLE) : text;
  const nul = sample.indexOf('\u0000');
  if (nul >= 0) return `not a text config (it holds binary data: a NUL character at offset ${nul})`;
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x0b) || c === 0x7f || c === 0xfffd) odd++;
  }
  if (odd > 8 && odd * 20 > sample.length)
    return `not a text config (${odd} of its first ${sample.length} characters are control characters or bytes that are not UTF-8)`;
  return undefined;
}

/**
 * Text from a config (or a binary's message quoting it) made safe for a terminal: control
 * characters other than tab and line feed, DEL and the C1 controls are shown as `\xNN` or `\uNNNN`
 * escapes, so a file cannot move the cursor, clear the screen or hide output.
 */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}
