"""pngcheck.py: is a file a valid, non-blank PNG?  (used by tests/report.t)

Checks, without third-party modules: the 8-byte signature; IHDR first, 13
bytes, width and height > 0, a known colour type and bit depth; every
chunk's CRC; IDAT present and IEND last; the zlib stream of the IDAT chunks
inflates to exactly height * (1 + row bytes) bytes (non-interlaced images);
and the image is not blank.  Blank is judged on the filtered scanlines
without decoding them: in a uniform image every row after the first, past
its first pixel, holds at most CHANNELS distinct byte values whatever the
filter (None: the colour's bytes; Sub, Up, Average, Paeth: zeros), so we
require at least 1% of the rows to hold more (axes, lines and text do).
"""
import struct
import zlib

SIG = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG 1.2, table 11.1


def check_png(path):
    """Return (ok, why, (width, height))."""
    try:
        data = open(path, "rb").read()
    except OSError as e:
        return False, "cannot read %s: %s" % (path, e), None
    if len(data) < 8 + 25 or data[:8] != SIG:
        return False, "%s: no PNG signature" % path, None
    pos, chunks = 8, []
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            return False, "%s: chunk %r runs past the end" % (path, ctype), None
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            return False, "%s: bad CRC in chunk %r" % (path, ctype), None
        chunks.append((ctype, body))
        pos += 12 + length
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        return False, "%s: IHDR is not the first chunk" % path, None
    w, h, depth, ctype, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if w == 0 or h == 0:
        return False, "%s: empty image %dx%d" % (path, w, h), (w, h)
    if ctype not in CHANNELS or depth not in (1, 2, 4, 8, 16) or comp or filt:
        return False, "%s: bad IHDR fields" % path, (w, h)
    if chunks[-1][0] != b"IEND":
        return False, "%s: IEND is not the last chunk" % path, (w, h)
    idat = b"".join(body for t, body in chunks if t == b"IDAT")
    if not idat:
        return False, "%s: no IDAT" % path, (w, h)
    try:
        raw = zlib.decompress(idat)
    except zlib.error as e:
        return False, "%s: IDAT does not inflate: %s" % (path, e), (w, h)
    if interlace == 0:
        rowbytes = (w * CHANNELS[ctype] * depth + 7) // 8
        if len(raw) != h * (1 + rowbytes):
            return False, "%s: %d bytes of image data, expected %d" % (
                path, len(raw), h * (1 + rowbytes)), (w, h)
        bpp = max(1, CHANNELS[ctype] * depth // 8)
        busy = 0
        for r in range(1, h):
            row = raw[r * (1 + rowbytes) + 1 + bpp:(r + 1) * (1 + rowbytes)]
            if len(set(row)) > CHANNELS[ctype]:
                busy += 1
        if busy * 100 < h:
            return False, "%s: blank image (%d of %d rows hold anything)" % (path, busy, h), (w, h)
    return True, "", (w, h)
