#!/bin/sh
# fetch.sh CACHE_DIR [MANIFEST] — re-read the corpus listed in MANIFEST
# (default: the precision corpus's manifest.tsv next to this script; the
# launch corpus passes ../launch/manifest.tsv) — repo, commit, path; the
# scripts themselves are not committed — into CACHE_DIR/owner+name/path.
#
# Each file comes from a local git mirror when $CHILDPROOF_CORPUS_MIRROR
# names a directory holding owner+name/repo (a bare or normal git
# directory), else from https://raw.githubusercontent.com/REPO/COMMIT/PATH
# with curl or wget. A file already in the cache is kept. Exit 0 when every
# file is there, 1 (with the count missing on stderr) otherwise.
set -u
cache=${1:?usage: fetch.sh CACHE_DIR [MANIFEST]}
here=$(cd "$(dirname "$0")" && pwd)
manifest=${2:-$here/manifest.tsv}
mirror=${CHILDPROOF_CORPUS_MIRROR:-}
missing=0
mkdir -p "$cache" || exit 1
while IFS="$(printf '\t')" read -r repo commit path; do
	case $repo in '#'* | '') continue ;; esac
	out="$cache/$(printf '%s' "$repo" | tr / +)/$path"
	[ -s "$out" ] && continue
	mkdir -p "$(dirname "$out")" || exit 1
	tmp="$out.tmp.$$"
	ok=1
	m="$mirror/$(printf '%s' "$repo" | tr / +)/repo"
	if [ -n "$mirror" ] && [ -d "$m" ] && git -C "$m" show "$commit:$path" >"$tmp" 2>/dev/null; then
		ok=0
	elif command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 5 --max-time 20 "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$tmp" 2>/dev/null && ok=0
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 10 -O "$tmp" "https://raw.githubusercontent.com/$repo/$commit/$path" 2>/dev/null && ok=0
	fi
	if [ $ok -eq 0 ]; then
		mv "$tmp" "$out"
	else
		rm -f "$tmp"
		missing=$((missing + 1))
		# Offline (CI has no internet but package registries): give up at the
		# first file that neither a mirror nor the network gives.
		if [ ! -d "$m" ]; then
			echo "fetch.sh: cannot read $repo/$commit/$path (and others): offline?" >&2
			exit 1
		fi
	fi
done <"$manifest"
if [ $missing -gt 0 ]; then
	echo "fetch.sh: $missing file(s) could not be read" >&2
	exit 1
fi
