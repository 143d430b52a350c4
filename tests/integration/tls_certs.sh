#!/usr/bin/env bash
# Test certificates for the TLS tests, made with openssl in DIR (nothing is checked in):
#   ca.pem ca.key           the test CA
#   server.pem              key + chain of the server (CN=localhost, SAN IP:127.0.0.1, DNS:localhost)
#   server.crt server.key   the same as separate files (inline keystore tests)
#   server-enc.pem          the server key encrypted (PKCS#8, password "keypass") + chain
#   client.crt client.key   a client certificate, CN=client,OU=Apps,O=Gregor, from the test CA
#   expired.pem             a server key + certificate from the test CA that expired in 2020
#   untrusted.pem           a server key + certificate from another CA (other-ca.pem)
#   bash tests/integration/tls_certs.sh DIR
set -euo pipefail
D="$1"
mkdir -p "$D"
cd "$D"
q() { "$@" >/dev/null 2>&1 || { echo "tls_certs: failed: $*" >&2; exit 1; }; }
ext() { printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >"$1"; }
q openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 -subj "/CN=Gregor Test CA"
q openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 3650 -subj "/CN=Other CA"
ext san.ext
sign() { # sign NAME SUBJECT CA_PREFIX
  q openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
  q openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -out "$1.crt" -days 825 \
    -extfile san.ext
}
sign server "/CN=localhost" ca
cat server.key server.crt ca.pem >server.pem
q openssl pkcs8 -topk8 -in server.key -out server-enc.key -passout pass:keypass -v2 aes-256-cbc
cat server-enc.key server.crt ca.pem >server-enc.pem
sign client "/O=Gregor/OU=Apps/CN=client" ca
sign untrusted "/CN=localhost" other-ca
cat untrusted.key untrusted.crt >untrusted.pem
# expired: openssl ca can set dates in the past
mkdir -p expca && : >expca/index.txt && echo 01 >expca/serial
cat >expca/ca.cnf <<CNF
[ca]
default_ca=d
[d]
dir=expca
database=expca/index.txt
serial=expca/serial
new_certs_dir=expca
default_md=sha256
policy=p
copy_extensions=none
[p]
commonName=supplied
CNF
q openssl req -newkey rsa:2048 -nodes -keyout expired.key -out expired.csr -subj "/CN=localhost"
q openssl ca -batch -config expca/ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.crt \
  -startdate 20190101000000Z -enddate 20200101000000Z -extfile san.ext -notext
cat expired.key expired.crt >expired.pem
