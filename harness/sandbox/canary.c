/* canary.c: the canary scan of isolated calls (see canary.h).  The ACSL
 * contracts here are proved by Frama-C WP (make prove, docs/proofs.md). */
#include "canary.h"
#include "ACSL/harness.acsl" /* ACSL predicates: comments only */

/* Bytes of C[0 .. N) that differ from BYTE; the index of the first such
 * byte goes to *FIRST (N when there is none). */
/*@ requires valid: \valid_read(c + (0 .. n - 1));
    requires valid_first: \valid(first);
    requires separated: \separated(first, c + (0 .. n - 1));
    assigns *first;
    ensures count: \result <= n;
    behavior intact:
      assumes all_same: pc_all_bytes(c, n, byte);
      ensures none: \result == 0 && *first == n;
    behavior changed:
      assumes some_changed: !pc_all_bytes(c, n, byte);
      ensures some: 1 <= \result;
      ensures first_in: *first < n && c[*first] != byte;
      ensures first_is_first: pc_all_bytes(c, *first, byte);
    complete behaviors;
    disjoint behaviors;
*/
static size_t changed_bytes(const unsigned char *c, size_t n, unsigned char byte, size_t *first)
{
    size_t count = 0;
    *first = n;
    /*@ loop invariant scanned: 0 <= k <= n;
        loop invariant count: count <= k;
        loop invariant none_yet: count == 0 <==> pc_all_bytes(c, k, byte);
        loop invariant none_first: count == 0 ==> *first == n;
        loop invariant first: count > 0 ==> *first < k && c[*first] != byte
                                              && pc_all_bytes(c, *first, byte);
        loop assigns k, count, *first;
        loop variant n - k; */
    for (size_t k = 0; k < n; k++)
        if (c[k] != byte) {
            if (count == 0) *first = k;
            count++;
        }
    return count;
}

/* Only the two canary regions are valid to read here, so WP proves that
 * nothing else (OUT, or past the mapping) is read: such a read would be an
 * unprovable memory-access goal. */
/*@ requires layout: lead + out_bytes <= data_len;
    requires valid_lead: \valid_read(data + (0 .. lead - 1));
    requires valid_tail: \valid_read(data + (lead + out_bytes .. data_len - 1));
    requires valid_r: \valid(r);
    requires separated: \separated(r, data + (0 .. data_len - 1));
    assigns *r;
    ensures before: r->before <= lead;
    ensures after: r->after <= data_len - lead - out_bytes;
    behavior intact:
      assumes lead_same: pc_all_bytes(data, lead, byte);
      assumes tail_same: pc_all_bytes(data + lead + out_bytes, data_len - lead - out_bytes, byte);
      ensures clean: \result == 0 && r->before == 0 && r->after == 0;
    behavior changed:
      assumes some_changed: !pc_all_bytes(data, lead, byte) ||
                            !pc_all_bytes(data + lead + out_bytes, data_len - lead - out_bytes, byte);
      ensures detected: \result == 1 && (r->before > 0 || r->after > 0);
      ensures farthest_before: r->before > 0 ==>
        1 <= r->first_before <= lead && data[lead - r->first_before] != byte &&
        pc_all_bytes(data, lead - r->first_before, byte);
      ensures first_after: r->after > 0 ==>
        r->first_after < data_len - lead - out_bytes &&
        data[lead + out_bytes + r->first_after] != byte &&
        pc_all_bytes(data + lead + out_bytes, r->first_after, byte);
    complete behaviors;
    disjoint behaviors;
*/
int pc_canary_check(const unsigned char *data, size_t data_len, size_t lead, size_t out_bytes,
                    unsigned char byte, pc_canary_report *r)
{
    size_t first = 0;
    r->before = changed_bytes(data, lead, byte, &first);
    r->first_before = r->before ? lead - first : 0;
    const unsigned char *tail = data + lead + out_bytes;
    r->after = changed_bytes(tail, data_len - lead - out_bytes, byte, &first);
    r->first_after = r->after ? first : 0;
    return r->before || r->after;
}
