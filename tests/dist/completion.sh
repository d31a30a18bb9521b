# SPDX-License-Identifier: LGPL-2.1-or-later
# completion/bash/ksymcheck, run the way bash runs it (COMP_WORDS, COMP_CWORD, then the
# function registered with `complete -F`): commands and every command's options come
# from the tool's --help (so new commands are covered here without a change), values of
# options by kind, operands by the files each command reads.
. tests/lib.sh
root=$T_TMP/root
scripts/mk-sample-kernel.sh "$FIXTURES" "$root"

# comp WORD... : the completions bash would offer for the last word, sorted, one line.
comp() {
	bash --norc --noprofile -c '
		. completion/bash/ksymcheck || exit 1
		f=$(complete -p ksymcheck | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$f" ksymcheck "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | xargs -d "\n" echo' comp "$KSC" "$@"
}

if bash --norc -c '. completion/bash/ksymcheck && complete -p ksymcheck' > "$T_TMP/out" 2>&1; then
	t_ok "the script registers a completion for ksymcheck: $(cat "$T_TMP/out")"
else
	t_fail "the script registers a completion for ksymcheck" "$(cat "$T_TMP/out")"
fi
commands=$("$KSC" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\)  .*/\1/p')
t_eq "commands: those of ksymcheck --help" "$(echo $commands | tr ' ' '\n' | sort | xargs)" "$(comp "")"
t_eq "a command by its first letters" "check" "$(comp ch)"
t_eq "ksymcheck's own options" "--help --version" "$(comp --)"

# Every command completes every long option its --help lists, and --json where
# --format takes json.
for cmd in $commands; do
	"$KSC" "$cmd" --help > "$T_TMP/help" 2>&1 || continue
	want=$(grep -oE '^[[:space:]]+(-[[:alnum:]], )?--[[:alnum:]][[:alnum:]-]*' "$T_TMP/help" |
		grep -oE -- '--[[:alnum:]-]+' | sort -u)
	sed -n '/--format/,/^ *-/p' "$T_TMP/help" | grep -qw json && want=$(printf '%s\n--json\n' "$want" | sort -u)
	sub=$(sed -n "s/^\(Usage:\)\{0,1\}[[:space:]]*ksymcheck $cmd \([a-z][a-z0-9-]*\).*/\2/p" "$T_TMP/help" | head -n 1)
	got=$(comp "$cmd" $sub --)
	t_eq "$cmd${sub:+ $sub}: every long option of --help" "$(echo $want)" "$got"
done

# Values of options.
t_eq "check --format: text, json, sarif, kernel" "json kernel sarif text" "$(comp check --format "")"
t_eq "check -f (the short spelling)" "json kernel sarif text" "$(comp check -f "")"
t_eq "tree --format: text, json, sarif" "json sarif text" "$(comp tree --format "")"
t_eq "exports --format: text, json, symvers" "json symvers text" "$(comp exports --format "")"
t_eq "imports --format=" "json text" "$(comp imports --format = "")"
t_eq "check --view" "both loader modpost" "$(comp check --view "")"
t_eq "check --distro" "debian upstream" "$(comp check --distro "")"
t_eq "check --kver: the releases below the --kernel root" "6.16.0-demo" "$(comp check -k "$root" --kver "")"
t_eq "... also after --kernel=ROOT" "6.16.0-demo" "$(comp check --kernel = "$root" --kver 6)"
t_eq "check --policy: the versions its help names" "6.1 6.12.y 6.16 6.17 6.18 6.6.y 7.0 7.1 7.2 7.3" \
	"$(comp check --policy "" | tr ' ' '\n' | sort | xargs)"
t_eq "modinfo -F: .modinfo keys" "license" "$(comp modinfo -F lic)"
t_eq "... and the signature's, as kmod's modinfo" "sig_hashalgo sig_id sig_key signature signer" "$(comp modinfo -F sig)"
t_eq "src migrate --to: the versions of check --policy" "6.1 6.12.y 6.16 6.17 6.18 6.6.y 7.0 7.1 7.2 7.3" \
	"$(comp src migrate --to "" | tr ' ' '\n' | sort | xargs)"
t_eq "diff --policy-old" "7.0 7.1 7.2 7.3" "$(comp diff --policy-old 7)"
t_eq "diff --policy-new=" "6.1 6.12.y 6.16 6.17 6.18" "$(comp diff --policy-new = 6.1)"
t_eq "audit KVER: the releases below the -b root" "6.16.0-demo" "$(comp audit -b "$root" "")"
t_eq "... after --basedir=ROOT and --cert FILE" "6.16.0-demo" "$(comp audit --basedir = "$root" --cert x.pem 6)"
t_eq "... one KVER only" "" "$(comp audit -b "$root" 6.16.0-demo 6)"
t_eq "explain: the finding codes" "gpl-only" "$(comp explain gpl)"
t_eq "explain: the rule ids" "R3 R30 R31 R32 R33 R34 R35 R36 R37 R38 R39" "$(comp explain R3)"

# Operands and file values, in a folder with one file of each kind.
files=$T_TMP/files
mkdir -p "$files/sub" "$files/with space"
touch "$files/a.ko" "$files/b.ko.xz" "$files/c.ko.zst" "$files/d.ko.gz" "$files/notes.txt" \
	"$files/e f.ko" "$files/Module.symvers" "$files/x.c" "$files/y.h" "$files/z.S"
t_eq "check MODULE: modules (.ko, .ko.gz, .ko.xz, .ko.zst) and folders only" \
	"$files/a.ko $files/b.ko.xz $files/c.ko.zst $files/d.ko.gz $files/e f.ko $files/sub $files/with space" \
	"$(comp check -k "$root" "$files/")"
t_eq "modinfo, after an option with a value" "$files/a.ko" "$(comp modinfo -F name "$files/a")"
t_eq "check -k ROOT: folders only" "$files/sub $files/with space" "$(comp check -k "$files/")"
t_eq "check --symvers FILE: any file" "$files/Module.symvers" "$(comp check --symvers "$files/M")"
t_eq "exports PATH: any file" "$files/notes.txt" "$(comp exports "$files/n")"
if grep -qx src <<< "$commands"; then
	t_eq "src: its subcommands" "migrate scan" "$(comp src "")"
	t_eq "src scan PATH: C sources and folders" "$files/sub $files/with space $files/x.c $files/y.h $files/z.S" \
		"$(comp src scan "$files/")"
fi
