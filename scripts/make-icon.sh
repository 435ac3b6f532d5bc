#!/usr/bin/env bash
# Draws the extension's icon, media/icon.png (256 x 256; the Marketplace and Open VSX show it at
# 128), with ImageMagick: a latency curve rising into its tail over the brackets of a config
# block, and "P99". Run again after editing; the PNG is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
convert=${CONVERT:-/usr/bin/convert}
out=media/icon.png
"$convert" -size 256x256 xc:none \
  -fill '#0f2d40' -draw 'roundrectangle 8,8 247,247 40,40' \
  -fill none -stroke '#2f6f8f' -strokewidth 10 \
  -draw 'path "M 70,58 Q 44,58 44,84 L 44,112 Q 44,128 30,128 Q 44,128 44,144 L 44,172 Q 44,198 70,198"' \
  -draw 'path "M 186,58 Q 212,58 212,84 L 212,112 Q 212,128 226,128 Q 212,128 212,144 L 212,172 Q 212,198 186,198"' \
  -stroke '#4fd1c5' -strokewidth 9 -draw 'line 74,188 98,184 line 98,184 120,180 line 120,180 140,174 line 140,174 156,164 line 156,164 168,148 line 168,148 177,126 line 177,126 184,100' \
  -stroke none -fill '#4fd1c5' -draw 'circle 74,188 78,188 circle 98,184 102,184 circle 120,180 124,180 circle 140,174 144,174 circle 156,164 160,164 circle 168,148 172,148 circle 177,126 181,126 circle 184,100 188,100' \
  -stroke none -fill '#ffffff' -font DejaVu-Sans-Bold -pointsize 44 -gravity north -annotate +0+44 'P99' \
  -strip PNG32:"$out"
echo "$out: $(wc -c <"$out") bytes"
