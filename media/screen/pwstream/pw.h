// A PipeWire video consumer for one node of a screen-cast portal session:
// connects to the portal's PipeWire descriptor, negotiates raw 32-bit RGB,
// and keeps the newest frame (converted to RGBA) for the Go side to copy.
#ifndef AIMDESK_PW_H
#define AIMDESK_PW_H
#include <stdint.h>
#include <stddef.h>

typedef struct aimdesk_pw aimdesk_pw;

// aimdesk_pw_open takes ownership of fd. NULL with err filled on failure.
aimdesk_pw *aimdesk_pw_open(int fd, uint32_t node, char *err, size_t errlen);
// aimdesk_pw_read waits up to timeout_ms for a frame newer than *seq (or
// any frame when *seq is 0). Results: 0 a frame was copied into dst
// (w*h*4 RGBA bytes) and *seq, *w, *h set; 1 no newer frame yet; 2 dst
// is too small (*w, *h set); -1 the stream failed or ended (err filled).
int aimdesk_pw_read(aimdesk_pw *c, uint8_t *dst, size_t cap, uint64_t *seq, int *w, int *h, int timeout_ms, char *err, size_t errlen);
void aimdesk_pw_close(aimdesk_pw *c);
#endif
