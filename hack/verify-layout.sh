#!/usr/bin/env bash
# Checks that the docs of the layout match the tree (make verify runs it):
#   - every Go package, of every module in the repository (build tags
#     included), is a row of the README's "Layout" table;
#   - PROJECT's layout (the kubebuilder plugin) is the one whose layout the
#     tree has: go.kubebuilder.io/v3 keeps main.go at the top and the
#     reconciler in controllers/ (v4 moved them to cmd/ and internal/controller/).
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

table=$(awk '/^## Layout/ {on = 1; next} /^## / {on = 0} on && /^\|/' README.md)
listed=$(printf '%s\n' "$table" | cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`' | sed 's|/$||' | sort -u)

packages() {
  local dir=$1
  go -C "$dir" list -tags e2e -f '{{.Dir}}' ./... | sed "s|^$top/||; s|^$top\$|.|"
}
missing=()
for dir in . $(git ls-files '*go.mod' | xargs -n1 dirname | grep -v '^\.$'); do
  # Modules that only pin tools (no Go files of their own) have no packages.
  if [ -z "$(git ls-files "$dir" | grep '\.go$' | head -n1)" ]; then continue; fi
  for pkg in $(packages "$dir"); do
    case "$pkg" in .) pkg=main.go ;; esac
    grep -qxF "$pkg" <<<"$listed" || missing+=("$pkg")
  done
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "README.md: the Layout table lists no row for these packages: ${missing[*]}"
  exit 1
fi

layout=$(awk '/^layout:/ {getline; print $2}' PROJECT)
if [ "$layout" != "go.kubebuilder.io/v3" ] || [ ! -f main.go ] || [ ! -d controllers ]; then
  echo "PROJECT: layout $layout, but the tree has main.go at the top and controllers/ (go.kubebuilder.io/v3)"
  exit 1
fi
