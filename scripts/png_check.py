#!/usr/bin/env python3
"""Checks that a PNG screenshot is not blank: decodes it with zlib alone
(8-bit RGB/RGBA/grey, all five row filters) and requires enough non-white
pixels and distinct colours. Usage: png_check.py FILE [MIN_INK_FRACTION]
[MIN_COLOURS]. Prints the counts; exit 1 when the image looks blank."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace != 0 or ctype not in (0, 2, 4, 6):
        raise ValueError(f"unsupported PNG: depth {depth} type {ctype} interlace {interlace}")
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path = sys.argv[1]
    min_ink = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    min_colours = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    w, h, bpp, rows = decode(path)
    colours, ink = set(), 0
    for row in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            px = row[x : x + min(bpp, 3)]
            colours.add(px)
            if any(v < 235 for v in px):
                ink += 1
    total = len(rows[::2]) * len(range(0, w * bpp, bpp * 2))
    frac = ink / max(total, 1)
    print(f"{path}: {w}x{h}, {len(colours)} colours, {100 * frac:.1f}% non-white")
    if frac < min_ink or len(colours) < min_colours:
        print(f"{path}: looks blank (need {100 * min_ink:.1f}% ink and {min_colours} colours)")
        sys.exit(1)


if __name__ == "__main__":
    main()
