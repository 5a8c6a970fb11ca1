/**
 * A body part larger than this is never inlined in a message view (its slice gives only size
 * and url; docs/messages-and-matching.md "Body slices"). The parser keeps parts up to this size in the message row, so every
 * part a view can inline is read from the row.
 */
export const INLINE_PART_MAX_BYTES = 524_288;
