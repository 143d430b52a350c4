#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=...` runs) into a temporary prefix, then use
# the result the way a user or a packager would, outside the source tree:
#  - gregor.pc carries that prefix (not the configure-time /usr/local);
#  - examples/producer.c compiled and linked with `pkg-config --cflags --libs gregor`
#    (shared) and with `pkg-config --static` against libgregor.a (no libgregor.so needed
#    at run time), both run against the installed gregord and their records read back
#    with the installed gregor CLI;
#  - gregord, the sample server.properties, the systemd unit and the sysusers.d file are
#    installed; the unit names the installed binary and config (`systemd-analyze verify`
#    when systemd-analyze is present); a second install keeps an edited server.properties.
#   bash tests/integration/test_install.sh [--keep]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
gr_init "$@"
gr_require cc pkg-config cmake
[[ "$GR_TARGET" == gregord ]] || die "test_install checks the installed gregord (no --ref/--bootstrap)"

P="$GR_TMP/prefix"
mkdir -p "$P"
cmake --install "$GR_BUILD_DIR" --prefix "$P" >"$GR_TMP/install.log" 2>&1 || {
  tail -n 20 "$GR_TMP/install.log"
  die "cmake --install failed"
}
ok "cmake --install into $P"

# --- what is installed
for f in bin/gregord bin/gregor lib/libgregor.a include/gregor/gregor.h lib/pkgconfig/gregor.pc \
  etc/gregor/server.properties share/doc/gregor/server.properties \
  lib/systemd/system/gregord.service lib/sysusers.d/gregor.conf; do
  check "installed: $f" test -e "$P/$f"
done
check "installed: libgregor.so" test -e "$P/lib/libgregor.so"
check "installed gregord runs (--help)" bash -c "\"$P/bin/gregord\" --help >/dev/null"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
check_eq "gregor.pc prefix is the install prefix" "$P" "$(pkg-config --variable=prefix gregor)"
check "pkg-config --static names -lstdc++ (snappy is C++)" \
  grep -q -- '-lstdc++' <<<"$(pkg-config --static --libs gregor)"

unit="$P/lib/systemd/system/gregord.service"
check "unit: ExecStart is the installed gregord with the installed config" \
  grep -qx "ExecStart=$P/bin/gregord --config $P/etc/gregor/server.properties" "$unit"
for k in Type=simple Restart=on-failure LimitNOFILE= User=gregor NoNewPrivileges=yes ProtectSystem=strict; do
  check "unit: $k" grep -q "^$k" "$unit"
done
if command -v systemd-analyze >/dev/null; then
  # It checks the unit's syntax and that ExecStart exists; the gregor user need not.
  if systemd-analyze verify "$unit" >"$GR_TMP/verify.log" 2>&1; then ok "systemd-analyze verify"; else
    cat "$GR_TMP/verify.log"; fail "systemd-analyze verify"; fi
else
  log "systemd-analyze not found: unit syntax not verified"
fi

# --- build an example outside the tree, as a user would
mkdir -p "$GR_TMP/app"
cp "$GR_SOURCE_DIR/examples/producer.c" "$GR_TMP/app/"
cd "$GR_TMP/app"
# A sanitizer build installs an instrumented library: the program needs the same runtime.
san=()
grep -q '^GR_ASAN:BOOL=ON' "$GR_BUILD_DIR/CMakeCache.txt" && san+=(-fsanitize=address)
grep -q '^GR_UBSAN:BOOL=ON' "$GR_BUILD_DIR/CMakeCache.txt" && san+=(-fsanitize=undefined)
# shellcheck disable=SC2046
if cc -Wall -Werror "${san[@]}" -o producer_shared producer.c $(pkg-config --cflags --libs gregor) \
  -Wl,-rpath,"$P/lib" 2>"$GR_TMP/cc-shared.log"; then ok "link with pkg-config --libs gregor"; else
  cat "$GR_TMP/cc-shared.log"; fail "link with pkg-config --libs gregor"; fi
# -Bstatic: every -l of the static list (libgregor.a, snappy, lz4, zstd, zlib, libstdc++, libm) from its .a
# shellcheck disable=SC2046
if cc -Wall -Werror "${san[@]}" -o producer_static producer.c $(pkg-config --cflags gregor) \
  -Wl,-Bstatic $(pkg-config --static --libs gregor) -Wl,-Bdynamic 2>"$GR_TMP/cc-static.log"; then
  ok "static link with pkg-config --static --libs gregor"
else
  cat "$GR_TMP/cc-static.log"; fail "static link with pkg-config --static --libs gregor"
fi
if [[ -x producer_static ]]; then
  check "static program does not load libgregor.so" bash -c "! ldd ./producer_static | grep -q libgregor"
fi

# --- run them against the installed gregord
gregord_bin() { echo "$P/bin/gregord"; }
start_gregord --override auto.create.topics.enable=true
for v in shared static; do
  [[ -x "producer_$v" ]] || continue
  if printf 'k1\t%s-1\nk2\t%s-2\n' "$v" "$v" | gr_timeout 60 "./producer_$v" "$BOOTSTRAP" installed-$v \
    >"$GR_TMP/prod-$v.log" 2>&1; then ok "$v example produced 2 records"; else
    cat "$GR_TMP/prod-$v.log"; fail "$v example produced 2 records"; fi
  got=$(gr_timeout 60 "$P/bin/gregor" consume --bootstrap-server "$BOOTSTRAP" --topic installed-$v \
    --from-beginning --max-messages 2 --timeout-ms 10000 2>"$GR_TMP/consume-$v.err" | sort | tr '\n' ' ')
  check_eq "$v example: records read back with the installed gregor" "$v-1 $v-2 " "$got"
done
stop_gregord
check_eq "installed gregord stopped cleanly" 0 "$GR_GREGORD_EXIT"

# --- a second install keeps the operator's configuration
echo "# edited by the operator" >>"$P/etc/gregor/server.properties"
cmake --install "$GR_BUILD_DIR" --prefix "$P" >>"$GR_TMP/install.log" 2>&1 || fail "second install"
check "reinstall keeps an edited etc/gregor/server.properties" \
  grep -q '^# edited by the operator' "$P/etc/gregor/server.properties"

# --- a packager's staged install: DESTDIR, PREFIX=/usr, the configuration in /etc
D="$GR_TMP/stage"
DESTDIR="$D" cmake --install "$GR_BUILD_DIR" --prefix /usr >>"$GR_TMP/install.log" 2>&1 || fail "DESTDIR install"
check "DESTDIR, PREFIX=/usr: config staged as /etc/gregor/server.properties" test -f "$D/etc/gregor/server.properties"
pc="$(find "$D/usr" -name gregor.pc | head -n 1)"
check "DESTDIR, PREFIX=/usr: gregor.pc says prefix=/usr" grep -qx 'prefix=/usr' "${pc:-/nonexistent}"
check "DESTDIR, PREFIX=/usr: the unit runs /usr/bin/gregord with /etc/gregor/server.properties" \
  grep -qx "ExecStart=/usr/bin/gregord --config /etc/gregor/server.properties" "$D/usr/lib/systemd/system/gregord.service"
gr_finish
