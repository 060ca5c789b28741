#!/usr/bin/env bash
# Install (or update) GRYB Companion as a hardened systemd service on Raspberry Pi OS (bookworm).
#
#   sudo systemd/install.sh              install from this checkout, enable and (re)start the service
#   systemd/install.sh --dry-run         print every command instead of running it (no root needed)
#
# Safe to run again: it only adds what is missing, reinstalls the program from the checkout (that is
# how an update is done), never overwrites /etc/gryb-companion/config.toml, and keeps the game data.
# What it does, step by step, is described in docs/install.md.
set -euo pipefail
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

VENV=$PREFIX/venv
BUILD=$PREFIX/build  # a clean copy of the checkout to build from, removed once installed
GROUPS_NEEDED=(gpio spi dialout)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

DRY_RUN=0
SPI=1
START=1
BROKER=0

usage() {
  cat <<EOF
Usage: $0 [--dry-run] [--no-spi] [--no-start] [--broker]

  --dry-run   print the commands that would run, change nothing
  --no-spi    leave SPI and the boot configuration alone (LEDs on PWM, or no LEDs)
  --no-start  install and enable the service, but do not start it now
  --broker    also set up Mosquitto here for linked boards: users, an ACL (docs/linking.md)
EOF
}

for arg in "$@"; do
  case $arg in
    --dry-run) DRY_RUN=1 ;;
    --no-spi) SPI=0 ;;
    --no-start) START=0 ;;
    --broker) BROKER=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $arg" >&2; usage >&2; exit 2 ;;
  esac
done

BOOT=$(boot_dir)
need_root "$@"
[ -f "$SRC/pyproject.toml" ] || { echo "not a GRYB Companion checkout: $SRC" >&2; exit 1; }

model=$(tr -d '\0' 2>/dev/null </proc/device-tree/model || true)
say "board: ${model:-not a Raspberry Pi (the service will need the simulator settings)}"
case $model in
  *"Raspberry Pi 5"* | *"Raspberry Pi 500"*) note "rpi_ws281x cannot drive LEDs on a Pi 5: let the Pico drive them (leds.driver = \"pico\", docs/hardware.md, 'The one-cable build'; --no-spi)" ;;
esac

# 1. System packages: the venv module, a compiler for rpi_ws281x when no wheel fits, and lgpio
#    (gpiozero's pin factory on bookworm; only in the Raspberry Pi archive, hence "if known").
say "system packages"
packages=(python3-venv python3-dev gcc)
if apt-cache show python3-lgpio >/dev/null 2>&1; then packages+=(python3-lgpio); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  run apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
else
  note "all present: ${packages[*]}"
fi

# 2. The groups that own the devices (Raspberry Pi OS has them; elsewhere they are created so the
#    unit's SupplementaryGroups= resolves) and the service user: a system user without a login.
say "user $USER_NAME (groups ${GROUPS_NEEDED[*]})"
for g in "${GROUPS_NEEDED[@]}"; do
  getent group "$g" >/dev/null || run groupadd --system "$g"
done
group_list=$(IFS=,; echo "${GROUPS_NEEDED[*]}")
if id "$USER_NAME" >/dev/null 2>&1; then
  run usermod --append --groups "$group_list" "$USER_NAME"
else
  run useradd --system --user-group --groups "$group_list" --home-dir "$STATE" --no-create-home \
    --shell /usr/sbin/nologin --comment "GRYB Companion service" "$USER_NAME"
fi

# 3. The program: a venv under /opt (root-owned, read-only for the service) with this checkout
#    installed into it. --system-site-packages lets it use Raspberry Pi OS's lgpio.
#    pip has setuptools build in the tree it is given, and its build/lib keeps every file it ever copied:
#    built from the checkout itself, a module or composition deleted there came back with every update
#    (and root-owned build/ and *.egg-info were left in the owner's checkout). So it builds from a fresh
#    copy of what pyproject.toml packages, which goes again afterwards.
say "program in $VENV from $SRC"
run install -d -m 0755 "$PREFIX"
if [ ! -x "$VENV/bin/python" ]; then
  run python3 -m venv --system-site-packages "$VENV"
fi
run rm -rf "$BUILD"
run install -d -m 0755 "$BUILD"
run cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/companion" "$SRC/hardware" "$SRC/firmware_bridge" "$SRC/web" \
  "$BUILD/"
run env PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/python" -m pip install --quiet --upgrade "$BUILD"
run rm -rf "$BUILD"

# 4. The configuration: the example the first time, never overwritten. Readable by the service only.
say "configuration $ETC/config.toml"
run install -d -m 0755 "$ETC"
if [ -e "$ETC/config.toml" ]; then
  note "kept the existing $ETC/config.toml (the example is $SRC/systemd/config.example.toml)"
else
  run install -m 0640 -o root -g "$USER_NAME" "$SRC/systemd/config.example.toml" "$ETC/config.toml"
fi

# 5. SPI for the LEDs: the interface itself, a transfer buffer big enough for 32x32 LEDs (12 bytes each:
#    12,312 > the default 4096), and a fixed core clock, which the SPI clock derives from. All in lines of
#    our own that uninstall.sh --purge takes out again: not raspi-config's do_spi, which turns the stock
#    "#dtparam=spi=on" into "dtparam=spi=on" in place, an edit no uninstall could tell from the owner's.
reboot_needed=0
if [ "$SPI" = 1 ]; then
  say "SPI for the LEDs"
  if [ -f "$BOOT/cmdline.txt" ]; then
    if grep -q 'spidev\.bufsiz=' "$BOOT/cmdline.txt"; then
      note "spidev.bufsiz already set in $BOOT/cmdline.txt"
    else
      run sed -i '1 s/$/ spidev.bufsiz=32768/' "$BOOT/cmdline.txt"
      reboot_needed=1
    fi
  else
    note "no $BOOT/cmdline.txt: add spidev.bufsiz=32768 to the kernel command line yourself"
  fi
  if [ -f "$BOOT/config.txt" ]; then
    if grep -qF "$MARK" "$BOOT/config.txt"; then
      note "SPI and the core clock already set in $BOOT/config.txt"
    else
      # One block, removed again by uninstall.sh --purge: SPI on for every model (harmless where it is
      # on already), then the core clock the SPI clock derives from: Pi 3 / Zero 2 W
      # 250 MHz; Pi 4 500 MHz without down-clocking. The final [all] ends the model filters.
      run sed -i -e '$a '"$MARK" -e '$a [all]' -e '$a dtparam=spi=on' -e '$a [pi3]' -e '$a core_freq=250' \
        -e '$a [pi02]' -e '$a core_freq=250' -e '$a [pi4]' -e '$a core_freq=500' -e '$a core_freq_min=500' \
        -e '$a [all]' "$BOOT/config.txt"
      reboot_needed=1
    fi
  else
    note "no $BOOT/config.txt: add dtparam=spi=on (and core_freq, see docs/hardware.md) yourself"
  fi
fi

# 6. The unit: installed, enabled at boot, and (re)started so an update takes effect.
say "service $UNIT_NAME"
run install -m 0644 "$SRC/systemd/$UNIT_NAME" "$UNIT_DIR/$UNIT_NAME"
if [ -d /run/systemd/system ]; then
  run systemctl daemon-reload
  run systemctl enable "$UNIT_NAME"
  if [ "$START" = 1 ] && [ "$reboot_needed" = 0 ]; then
    run systemctl restart "$UNIT_NAME"
  fi
else
  run systemctl enable "$UNIT_NAME"   # works offline too (an image being prepared in a chroot)
  note "systemd is not running here: the service starts at the next boot"
fi

# 7. With --broker: Mosquitto for linked boards, each board its own user that may publish only under its
#    own name. The password file is made empty; a board is added with mosquitto_passwd.
if [ "$BROKER" = 1 ]; then
  say "broker for linked boards (Mosquitto)"
  if ! dpkg-query -W -f='${Status}' mosquitto 2>/dev/null | grep -q 'install ok installed'; then
    run apt-get update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto
  fi
  run install -m 0644 "$SRC/systemd/mosquitto-gryb.conf" /etc/mosquitto/conf.d/gryb.conf
  run install -m 0644 "$SRC/systemd/mosquitto-gryb.acl" /etc/mosquitto/gryb.acl
  if [ ! -f /etc/mosquitto/gryb.passwd ]; then
    run install -m 0640 -o root -g mosquitto /dev/null /etc/mosquitto/gryb.passwd
  fi
  run systemctl enable mosquitto
  run systemctl restart mosquitto
  note "add each board: sudo mosquitto_passwd /etc/mosquitto/gryb.passwd <its [link] board name>"
  note "then: sudo systemctl reload mosquitto; and in each board's config: [link] url, board, user, password_file"
fi

say "done"
if [ "$reboot_needed" = 1 ]; then
  note "the boot configuration changed: reboot now (sudo reboot); the service starts by itself"
fi
note "status:  systemctl status gryb-companion"
note "log:     journalctl -u gryb-companion -f"
note "page:    http://$(hostname 2>/dev/null || echo '<pi>').local:8080"
