# shellcheck shell=bash
# Sourced by tests/distro/run.sh: sync_tree SRC DST makes DST hold exactly the
# files of SRC's userspace/, kmod/ and udev/ that git lists (tracked, and
# untracked ones not ignored: what a build of the working tree sees).  A file
# is rewritten only when its content differs, so it gets a new mtime exactly
# then: ninja in the chroot rebuilds what changed, also when SRC is another
# tree whose files are older than the last build (a copy keeping SRC's mtimes
# would leave such objects stale).
sync_tree() {
	local src=$1 dst=$2 f n=0
	local -A listed=()
	local files
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		files=$(cd "$src" && git ls-files -z --cached --others --exclude-standard -- userspace kmod udev | tr '\0' '\n')
	else
		files=$(cd "$src" && find userspace kmod udev -type f -not -path '*/build/*')
	fi
	[ -n "$files" ] || { echo "sync_tree: no files of userspace/ kmod/ udev/ in $src" >&2; return 1; }
	mkdir -p "$dst"
	while IFS= read -r f; do
		[ -f "$src/$f" ] || continue # deleted in the working tree
		listed[$f]=1
		cmp -s "$src/$f" "$dst/$f" && continue
		mkdir -p "$(dirname "$dst/$f")"
		rm -f "$dst/$f"
		cp --preserve=mode "$src/$f" "$dst/$f" || return 1
		n=$((n + 1))
	done <<<"$files"
	while IFS= read -r -d '' f; do
		[ -n "${listed[$f]:-}" ] || rm -f "$dst/$f"
	done < <(cd "$dst" && find . -type f -printf '%P\0')
	echo "sync_tree: $n of ${#listed[@]} files copied into $dst"
}
