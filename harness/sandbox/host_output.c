/* host_output.c: what the plugin hosts' workers wrote to their stdout and
 * stderr (a memfd each, host_proto.h): the last bytes of each kept for
 * messages, and the pool's outputs in one text with their control
 * characters made visible (pc_host_output, host.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_state.h"

/* Append the N <= OUTPUT_KEEP bytes of BUF to H->output (its last
 * OUTPUT_KEEP bytes), NUL bytes left out: the text is shown as a C string. */
static void keep_output(pc_host *h, const char *buf, size_t n)
{
    char text[OUTPUT_KEEP];
    size_t k = 0;
    for (size_t i = 0; i < n && k < OUTPUT_KEEP; i++)
        if (buf[i] != '\0') text[k++] = buf[i];
    if (h->output_len + k > OUTPUT_KEEP) {
        size_t drop = h->output_len + k - OUTPUT_KEEP;
        memmove(h->output, h->output + drop, h->output_len - drop);
        h->output_len -= drop;
    }
    memcpy(h->output + h->output_len, text, k);
    h->output_len += k;
}

/* Read what the plugin wrote since the last look into H->output: at most
 * its last OUTPUT_KEEP bytes, in one read, whatever size the plugin gave
 * the file (ftruncate to 16 TiB makes a sparse file of zeros: only its
 * last 2 KiB are read).  A file shortened by the plugin is read from its
 * new end on. */
void pc_host_take_output(pc_host *h)
{
    struct stat sb;
    if (fstat(h->outfd, &sb) != 0) return;
    if (sb.st_size < h->out_seen) h->out_seen = sb.st_size;
    if (sb.st_size - h->out_seen > OUTPUT_KEEP) h->out_seen = sb.st_size - OUTPUT_KEEP;
    char buf[OUTPUT_KEEP];
    ssize_t n = pread(h->outfd, buf, (size_t)(sb.st_size - h->out_seen), h->out_seen);
    if (n <= 0) return;
    h->out_seen += n;
    keep_output(h, buf, (size_t)n);
}

/* H's captured output since the last look, appended to its last bytes,
 * copied to BUF (room for OUTPUT_KEEP); their count. */
static size_t host_output(pc_host *h, char *buf)
{
    pthread_mutex_lock(&h->mu);
    pc_host_take_output(h);
    size_t n = h->output_len;
    memcpy(buf, h->output, n);
    pthread_mutex_unlock(&h->mu);
    return n;
}

/* ROOM[k] of the N outputs of LEN[k] bytes in TOTAL bytes: an equal share
 * each, what one leaves unused shared among the others. */
static void share_room(const size_t *len, int n, size_t total, size_t *room)
{
    int left = n, fits = 1;
    for (int k = 0; k < n; k++) room[k] = SIZE_MAX; /* not placed yet */
    while (left > 0 && fits) {
        size_t each = total / (size_t)left;
        fits = 0;
        for (int k = 0; k < n; k++)
            if (room[k] == SIZE_MAX && len[k] <= each) {
                room[k] = len[k];
                total -= len[k];
                left--;
                fits = 1;
            }
    }
    for (int k = 0; k < n; k++)
        if (room[k] == SIZE_MAX) room[k] = total / (size_t)left;
}

/* The control characters of the N bytes of TEXT but newline and tab made
 * '?': a plugin's output is shown in pecheck's text, TAP and terminal, where
 * ESC, CR and the like could rewrite or hide the lines around it, and YAML
 * refuses them. */
static void show_controls(char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) text[i] = '?';
    }
}

/* The hosts' outputs one after the other, in the pool's order, each its
 * last bytes in its share of LEN - 1 (each one's calls are the same
 * whatever --threads says, so this text is too). */
size_t pc_host_output(pc_host *h, char *buf, size_t len)
{
    int n = h->pool->n;
    char *all = malloc((size_t)n * OUTPUT_KEEP);
    size_t *got = calloc((size_t)n, 2 * sizeof *got), w = 0;
    if (len) buf[0] = '\0';
    if (!all || !got || !len) { free(all); free(got); return 0; }
    for (int k = 0; k < n; k++)
        got[k] = host_output(h->pool->hosts[k], all + (size_t)k * OUTPUT_KEEP);
    share_room(got, n, len - 1, got + n);
    for (int k = 0; k < n; k++) {
        memcpy(buf + w, all + (size_t)k * OUTPUT_KEEP + got[k] - got[n + k], got[n + k]);
        w += got[n + k];
    }
    buf[w] = '\0';
    show_controls(buf, w);
    free(all);
    free(got);
    return w;
}
