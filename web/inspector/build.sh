#!/bin/sh
# build.sh WASM OUT — the inspector page as one file (make inspector):
# index.html with cli.js, the command's module in base64 and inspector.js
# in place of its <!-- chronoid:scripts --> line.  A page opened from the
# disk may load no other file, so nothing is left outside it.
set -eu
here=$(dirname "$0")
tmp="$2.tmp"
{
    sed '/<!-- chronoid:scripts -->/,$d' "$here/index.html"
    echo '<script>'
    cat "$here/cli.js"
    printf 'const CHRONOID_WASM = "'
    base64 -w0 "$1"
    echo '";'
    cat "$here/inspector.js"
    echo '</script>'
    sed '1,/<!-- chronoid:scripts -->/d' "$here/index.html"
} >"$tmp"
mv "$tmp" "$2"
