#!/usr/bin/env bash
# Remove the GRYB Companion service installed by systemd/install.sh.
#
#   sudo systemd/uninstall.sh            stop and remove the service and the program; keep the game
#                                        data (/var/lib/gryb-companion), the config and the user
#   sudo systemd/uninstall.sh --purge    also delete the data, the config, the user gryb and the
#                                        boot settings install.sh added for the LEDs
#   systemd/uninstall.sh --dry-run       print every command instead of running it (no root needed)
#
# Safe to run again: every step checks whether there is still something to undo.
set -euo pipefail
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"


DRY_RUN=0
PURGE=0

usage() {
  cat <<EOF
Usage: $0 [--dry-run] [--purge]

  --dry-run   print the commands that would run, change nothing
  --purge     also delete the game data, the config, the user $USER_NAME and the LED boot settings
EOF
}

for arg in "$@"; do
  case $arg in
    --dry-run) DRY_RUN=1 ;;
    --purge) PURGE=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $arg" >&2; usage >&2; exit 2 ;;
  esac
done

BOOT=$(boot_dir)
need_root "$@"

# 1. The service: stopped, disabled, its unit file and any drop-ins removed.
say "service $UNIT_NAME"
systemd_up=0
[ -d /run/systemd/system ] && systemd_up=1
if [ "$systemd_up" = 1 ] && systemctl cat "$UNIT_NAME" >/dev/null 2>&1; then
  run systemctl disable --now "$UNIT_NAME"
elif [ -e "$UNIT_DIR/$UNIT_NAME" ]; then
  run systemctl disable "$UNIT_NAME"
fi
for path in "$UNIT_DIR/$UNIT_NAME" "$UNIT_DIR/$UNIT_NAME.d"; do
  if [ -e "$path" ]; then run rm -rf "$path"; fi
done
if [ "$systemd_up" = 1 ]; then
  run systemctl daemon-reload
  run systemctl reset-failed "$UNIT_NAME" || true   # nothing to reset is fine
fi

# 2. The program.
say "program $PREFIX"
if [ -e "$PREFIX" ]; then run rm -rf "$PREFIX"; else note "already gone"; fi

# 3. Data, config, user and boot settings: only with --purge.
if [ "$PURGE" = 1 ]; then
  say "purge: game data, config, user $USER_NAME, LED boot settings"
  for path in "$STATE" "$ETC"; do
    if [ -e "$path" ]; then run rm -rf "$path"; fi
  done
  if id "$USER_NAME" >/dev/null 2>&1; then run userdel "$USER_NAME"; fi
  # The groups gpio, spi and dialout belong to the system and stay.
  if [ -f "$BOOT/cmdline.txt" ] && grep -q ' spidev\.bufsiz=32768' "$BOOT/cmdline.txt"; then
    run sed -i '1 s/ spidev\.bufsiz=32768//' "$BOOT/cmdline.txt"
  fi
  if [ -f "$BOOT/config.txt" ] && grep -qF "$MARK" "$BOOT/config.txt"; then
    # The block install.sh appended: the marker line and the 10 lines after it. SPI goes off with it
    # unless raspi-config (or you) enabled it elsewhere in the file.
    run sed -i "/^$MARK\$/,+10d" "$BOOT/config.txt"
  fi
else
  note "kept: $STATE (games, series, settings), $ETC (config), the user $USER_NAME; --purge deletes them"
fi
say "done"
