// Package imagefetch fetches and decodes the images agents point at, with
// fixed security limits, for both the chat view (package ui) and the A2UI
// renderer (package fyner). It has no toolkit dependency: it returns bytes
// and image.Image values, and caching, placeholders and notification stay
// with the callers.
//
// # Limits
//
//   - Schemes: only http, https and data: URLs are loaded; anything else
//     (file:, ftp:, javascript:, …) is refused with ErrScheme.
//   - Redirects: a fetch stops at the MaxRedirects-th (5th) redirect, as
//     net/http counts them (at most five requests in all; ErrFetch), and
//     every hop must stay on http or https (ErrScheme otherwise). A
//     caller's own http.Client gets the same rule in front of its own.
//   - Size: at most MaxBytes (10 MB) of encoded image, checked against the
//     announced Content-Length, while reading the body, on the payload of a
//     data: URL and again before decoding (ErrTooLarge).
//   - Time: a fetch, body included, must end within Timeout (10 s)
//     (ErrTimeout).
//   - Type: an http answer must be 2xx (ErrStatus) and say it is image/* or
//     application/octet-stream, or say nothing; a data: URL's media type
//     must be image/* or empty (ErrNotImage).
//   - Pixels: only PNG, JPEG and GIF are decoded, and the header is read
//     first (image.DecodeConfig) so that an image claiming more than
//     MaxPixels (40 million) pixels is refused before any pixel is
//     allocated (ErrTooManyPixels, which is also ErrTooLarge).
//   - Memory: an image whose decoded size (pixels × the bytes per pixel of
//     the type the decoder produces: 8 for 16-bit RGBA) is over
//     MaxDecodedBytes (128 MiB) is refused from its header
//     (ErrTooManyPixels); Bytes gives a decoded image's true size for
//     caches. At most MaxConcurrentDecodes (2) decodes run at once in the
//     process; DecodeContext gives up waiting when its context ends.
//   - Hosts: with Fetcher.Agent set, http(s) images load by themselves
//     only from the agent's origin; other hosts need Fetcher.Approved (a
//     click naming the host), else *HostError (ErrNeedsApproval).
//   - Addresses: a fetch never connects to a loopback, private,
//     link-local, unspecified, multicast or reserved address
//     (ErrAddressRefused), checked after DNS resolution at dial time (a
//     net.Dialer Control hook), so on every redirect and against DNS
//     rebinding; loopback is allowed when Agent is itself on this machine.
//
// A Fetcher's fields may lower these limits (tests do); values of zero, or
// above the package limits, mean the package limits.
//
// All errors wrap one of the Err sentinels; test them with errors.Is.
package imagefetch
