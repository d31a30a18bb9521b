# SPDX-License-Identifier: LGPL-2.1-or-later
# Inputs of the report tests (tests/cli/report.sh, tests/browser/report.sh); source it.
# report_symvers DIR: the two small Module.symvers of tests/cli/diff.sh, every kind of
# change between them, as DIR/old.symvers and DIR/new.symvers.
# report_render: builds tests/browser/render.c (tools/html.c on a JSON file) as
# $T_TMP/render; returns nonzero (compiler output in $T_TMP/render.log) if it cannot.
report_symvers() {
	_report_sv() { printf '0x%08x\t%s\t%s\t%s\t%s\n' "$@"; }
	{
		_report_sv 1 gone vmlinux EXPORT_SYMBOL ""
		_report_sv 2 c_gpl vmlinux EXPORT_SYMBOL ""
		_report_sv 3 d_ungpl vmlinux EXPORT_SYMBOL_GPL ""
		_report_sv 4 e_nsgain vmlinux EXPORT_SYMBOL ""
		_report_sv 5 f_nslose vmlinux EXPORT_SYMBOL X
		_report_sv 6 g_nschange vmlinux EXPORT_SYMBOL X
		_report_sv 7 h_restrict vmlinux EXPORT_SYMBOL_GPL ""
		_report_sv 8 i_rchange vmlinux EXPORT_SYMBOL_GPL module:kvm
		_report_sv 9 j_lift vmlinux EXPORT_SYMBOL_GPL module:kvm
		_report_sv 10 k_crc vmlinux EXPORT_SYMBOL ""
		_report_sv 11 l_owner vmlinux EXPORT_SYMBOL ""
		_report_sv 12 same vmlinux EXPORT_SYMBOL ""
		_report_sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL ""
		_report_sv 0x5eed0002 fxm_for_kvm_family virt/kvm/fx-modns EXPORT_SYMBOL_GPL ""
		_report_sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
	} > "$1/old.symvers"
	{
		_report_sv 2 c_gpl vmlinux EXPORT_SYMBOL_GPL ""
		_report_sv 3 d_ungpl vmlinux EXPORT_SYMBOL ""
		_report_sv 4 e_nsgain vmlinux EXPORT_SYMBOL X
		_report_sv 5 f_nslose vmlinux EXPORT_SYMBOL ""
		_report_sv 6 g_nschange vmlinux EXPORT_SYMBOL Y
		_report_sv 7 h_restrict vmlinux EXPORT_SYMBOL_GPL module:kvm
		_report_sv 8 i_rchange vmlinux EXPORT_SYMBOL_GPL "module:kvm,kvm-*"
		_report_sv 9 j_lift vmlinux EXPORT_SYMBOL_GPL ""
		_report_sv 0x1010 k_crc vmlinux EXPORT_SYMBOL ""
		_report_sv 11 l_owner drivers/l/l-mod EXPORT_SYMBOL ""
		_report_sv 12 same vmlinux EXPORT_SYMBOL ""
		_report_sv 13 newbie vmlinux EXPORT_SYMBOL ""
		_report_sv 0xd3ab0f00 dma_buf_get vmlinux EXPORT_SYMBOL_GPL DMA_BUF
		_report_sv 0x5eed0002 fxm_for_kvm_family virt/kvm/fx-modns EXPORT_SYMBOL_GPL module:kvm
		_report_sv 0x6e0a7d3c module_layout vmlinux EXPORT_SYMBOL ""
	} > "$1/new.symvers"
}

report_render() {
	sh tools/report/embed.sh tools/report/report.css tools/report/report.js \
		> "$T_TMP/report-assets.c" 2> "$T_TMP/render.log" || return 1
	# shellcheck disable=SC2046 # pkg-config prints several words
	${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -D_GNU_SOURCE \
		-DKSC_VERSION="\"$(sed -n "s/^VERSION := //p" Makefile)\"" \
		$(pkg-config --cflags json-c libxxhash) -o "$T_TMP/render" tests/browser/render.c \
		tools/html.c "$T_TMP/report-assets.c" tools/text.c util/array.c util/esc.c util/fileio.c \
		util/hash.c $(pkg-config --libs json-c libxxhash) \
		> "$T_TMP/render.log" 2>&1
}

# report_audit DIR: the fixture tree of tests/cli/audit.sh (with signed modules when the
# signed fixtures are there) under DIR/root and its audit as DIR/audit.json, and DIR/audit.html (by `audit --html` when the command has it, else by
# the render helper). Returns 1 when the tool, the script or the fixtures are not there.
report_audit() {
	local d=$1 rel=6.16.0-demo demo=$FIXTURES/demo rc
	"$KSC" audit --help > "$d/audit-help" 2>&1 && [ -x scripts/mk-sample-kernel.sh ] &&
		[ -f "$demo/intree/fx-patterns.ko" ] && [ -f "$demo/extra/kvm-evil.ko" ] || return 1
	scripts/mk-sample-kernel.sh "$FIXTURES" "$d/root" > /dev/null 2>&1 || return 1
	local k=$d/root/lib/modules/$rel
	mkdir -p "$k/kernel/arch/x86/kvm" "$k/kernel/drivers/fx" "$k/extra"
	cp "$demo/intree/kvm.ko" "$demo/intree/kvm-amd.ko" "$demo/intree/kvm_intel.ko" "$k/kernel/arch/x86/kvm/"
	cp "$demo/intree/fx-patterns.ko" "$k/kernel/drivers/fx/"
	cp "$demo/extra/kvm-evil.ko" "$k/extra/"
	# With the signed fixtures (tests/fixtures/signed.mk): kvm signed by the key given,
	# kvm-amd by another one, a signed module edited afterwards, and the rest unsigned.
	local signed=$FIXTURES/signed certs=()
	if [ -f "$signed/demo-kvm-rsa.ko" ] && grep -q -- '--cert' "$d/audit-help"; then
		cp "$signed/demo-kvm-rsa.ko" "$k/kernel/arch/x86/kvm/kvm.ko"
		cp "$signed/demo-kvm-amd-ec.ko" "$k/kernel/arch/x86/kvm/kvm-amd.ko"
		cp "$signed/demo-fx-patterns-edited.ko" "$k/kernel/drivers/fx/fx-patterns.ko"
		sed -i 's/^# CONFIG_MODULE_SIG is not set$/CONFIG_MODULE_SIG=y/' "$d/root/boot/config-$rel"
		certs=(--cert "$signed/rsa.pem")
	fi
	"$KSC" audit -b "$d/root" ${certs[@]+"${certs[@]}"} --json "$rel" > "$d/audit.json"
	rc=$?
	[ $rc -le 1 ] && [ -s "$d/audit.json" ] || return 1
	if grep -q -- '--html' "$d/audit-help"; then
		"$KSC" audit -b "$d/root" ${certs[@]+"${certs[@]}"} --html "$d/audit.html" "$rel" > /dev/null
	else
		"$T_TMP/render" html audit "$d/audit.json" "$d/audit.html" "ksymcheck audit: $rel"
	fi
	[ $? -le 1 ] && [ -s "$d/audit.html" ]
}
