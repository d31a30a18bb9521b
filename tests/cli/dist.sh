# SPDX-License-Identifier: LGPL-2.1-or-later
# The distribution tests that run in make check (a few seconds): make install/uninstall
# into a DESTDIR and the example built against the installed library (tests/dist/
# install.sh), bash completion (completion.sh), --json, NO_COLOR, write errors and
# --version for every command (conventions.sh), and the DKMS hook (dkms.sh).
# tests/dist/deb.sh, which builds, lints and installs the Debian packages, runs in
# make check-dist.
set -u
status=0
for t in install completion conventions dkms; do
	echo "# tests/dist/$t.sh"
	bash "tests/dist/$t.sh" || status=1
done
exit $status
