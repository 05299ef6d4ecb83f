#!/usr/bin/env bash
# Fails when a tracked file cites a file the repository does not have: the
# retired reference notes, raw captures or shared folders outside the checkout,
# a docs/... or other top-folder Markdown file or docs/sources/ file that does
# not exist, a § section number its target lacks, or a broken relative
# Markdown link.  The rules are in check_citations.py next to this script.
#
# usage: check-citations.sh [--root DIR] [--paths PATHSPEC...]
#   --paths limits the scan to those tracked files (git pathspecs, e.g.
#   docs README.md ':!tests/fixtures/*/expected.json'); references are still
#   resolved against the whole checkout.
# Exit 0 clean, 1 violations (one "file:line: what" per line), 2 cannot run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "check-citations: python3 not installed" >&2; exit 2; }
command -v git >/dev/null || { echo "check-citations: git not installed" >&2; exit 2; }
exec python3 "$here/check_citations.py" "$@"
