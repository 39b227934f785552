# tap.bash: what the bash .t tests share, sourced as
#   . "$(dirname "$0")/lib/tap.bash"
# tmp, a new folder removed at exit; ok NAME and nok NAME print the next
# numbered TAP line (n counts them).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
