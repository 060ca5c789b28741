# shellcheck shell=bash disable=SC2034  # sourced: its variables are used by the scripts that source it
# Shared by install.sh and uninstall.sh (sourced, not run): where the service lives, how a dry run
# prints its commands, and the root check. Both scripts run from the checkout, beside this file.

PREFIX=/opt/gryb-companion
ETC=/etc/gryb-companion
STATE=/var/lib/gryb-companion
UNIT_NAME=gryb-companion.service
UNIT_DIR=/etc/systemd/system
USER_NAME=gryb
MARK="# gryb-companion: SPI for the LEDs, at a steady clock"

# The boot partition: /boot/firmware on bookworm, /boot before. GRYB_BOOT_DIR overrides it (tests).
boot_dir() {
  if [ -n "${GRYB_BOOT_DIR:-}" ]; then
    echo "$GRYB_BOOT_DIR"
  elif [ -f /boot/firmware/config.txt ]; then
    echo /boot/firmware
  else
    echo /boot
  fi
}

# Run a command, or with --dry-run (DRY_RUN=1) print it shell-quoted after a '+'.
run() {
  if [ "$DRY_RUN" = 1 ]; then
    printf '+'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}
say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }

# Stop unless root (a dry run needs no root); say so when dry. Arguments: the script's own, for the hint.
need_root() {
  if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "Run as root: sudo $0 $* (or add --dry-run to see what it would do)" >&2
    exit 1
  fi
  if [ "$DRY_RUN" = 1 ]; then say "dry run: nothing is changed; the commands are printed with a leading +"; fi
}
