# The HTML report in a real browser: Debian's chromium renders the page headless to a PNG,
# decoded here (zlib only; no PIL), and the heat-map colours must cover a real area of both
# matrices. Also: the page is self-contained (no scripts, no external resources).
# Skips (77) when /usr/bin/chromium is absent (CI installs the chromium package).
. tests/e2e/cli_common.bash
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "SKIP: $CHROMIUM not installed (apt-get install chromium)"; exit 77; }

mkdir "$TMP/p"
python3 tests/e2e/report_gen.py "$TMP/p" 8 2 || fail "generator"
expect_status 0 "$HC" report "$TMP/p" --html "$TMP/r.html"
[ "$(grep -c '<svg ' "$TMP/r.html")" -eq 2 ] || fail "expected two matrices in the page"
if grep -Eiq '<script|<link|src=|href="?https?:' "$TMP/r.html"; then fail "page is not self-contained"; fi

HOME=$TMP timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1200,1500 --screenshot="$TMP/shot.png" "file://$TMP/r.html" >"$TMP/chromium.log" 2>&1
[ -s "$TMP/shot.png" ] || { cat "$TMP/chromium.log"; fail "no screenshot"; }

python3 - "$TMP/shot.png" <<'PY' || fail "screenshot check"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT": idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[:4]
assert depth == 8 and ctype in (2, 6), ihdr
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
heat = 0; row_heat = []
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    n = 0
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        if r > 80 and r > g + 60 and bl < 90:   # the heat map's reds and dark reds
            n += 1
    row_heat.append(n); heat += n
# Both matrices: heat-coloured cells in the upper and the lower half of the page (an empty
# matrix shows only its colour bar, about 6 000 such pixels).
top = sum(row_heat[:h // 2]); bottom = sum(row_heat[h // 2:])
print("heat pixels", heat, "top", top, "bottom", bottom)
assert top > 15000 and bottom > 15000, (top, bottom)  # the colour bar alone is ~6000
PY
echo "ok"
