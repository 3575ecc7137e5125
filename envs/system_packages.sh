#!/usr/bin/env bash
# The system packages of the set-up, from Debian's packages when missing and we are root (otherwise say what to
# install): with --latex LaTeX, with --browser Chromium and chromedriver for the site's browser test.
set -euo pipefail
want_latex=0
want_browser=0
for flag in "$@"; do
  case "$flag" in
    --latex) want_latex=1 ;;
    --browser) want_browser=1 ;;
    *) echo "system_packages.sh: unknown option $flag (expected --latex, --browser)" >&2; exit 2 ;;
  esac
done
# Debian's packages without their recommendations (texlive-latex-extra alone recommends a Java runtime and latexmk a
# PDF viewer): what the paper uses is named, Latin Modern's Type 1 fonts and pdftoppm (docs/audit.md) among it.
apt_install() {
  [ -n "${APT_UPDATED:-}" ] || apt-get update -qq
  APT_UPDATED=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if [ "$want_latex" = 1 ]; then
  if ! command -v latexmk >/dev/null || ! command -v pdflatex >/dev/null || ! command -v bibtex >/dev/null \
    || ! kpsewhich lmodern.sty >/dev/null || ! command -v pdftoppm >/dev/null; then
    pkgs="latexmk texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended"
    pkgs="$pkgs texlive-plain-generic lmodern poppler-utils"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt_install $pkgs
    else
      echo "LaTeX is missing. Install it, e.g. 'sudo apt-get install $pkgs' (Debian/Ubuntu), then rerun." >&2
      exit 1
    fi
  fi
fi
# The audit site's browser test drives Debian's Chromium through chromedriver (about 40 s to install once).
if [ "$want_browser" = 1 ]; then
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    pkgs="chromium chromium-driver"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt_install $pkgs
    else
      echo "Chromium is missing; the browser test will be skipped. Install it, e.g. 'sudo apt-get install $pkgs'." >&2
    fi
  fi
fi
