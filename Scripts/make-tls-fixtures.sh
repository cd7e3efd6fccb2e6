#!/usr/bin/env bash
# Writes the certificates and keys of the TLS tests into Tests/KringleTests/Fixtures/tls.
# They are committed (run this only to replace them): test-only keys, EC P-256 so that they are
# small, valid for 100 years except the one that is meant to be expired.
#
#   Scripts/make-tls-fixtures.sh
#
#   ca.pem, ca.key                 the test CA the trusting tests add (CURLOPT_CAINFO…)
#   localhost.pem, .key            signed by the CA for DNS:localhost and IP:127.0.0.1
#   localhost-next.pem, .key       the same names and CA, another key: what a rotation brings
#   expired.pem, .key              the same names, valid 1 to 2 January 2000 only
#   wrong-host.pem, .key           signed by the CA for DNS:wrong.example only
#   self-signed.pem, .key          localhost and 127.0.0.1, signed by its own key
#   client-ca.pem, .key            the CA the mTLS server accepts client certificates from
#   client.pem, .key               a client certificate from client-ca
#   client-encrypted.key           client.key encrypted (AES-256) with the password "kringle"
#   localhost.pin                  sha256// pin of localhost.pem's SubjectPublicKeyInfo
#   localhost-next.pin             the same for localhost-next.pem (the backup pin of a rotation)
set -euo pipefail
cd "$(dirname "$0")/../Tests/KringleTests/Fixtures/tls"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
days=36500

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

ca() { # name subject
    key "$1.key"
    openssl req -x509 -new -key "$1.key" -out "$1.pem" -days $days -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
}

# `openssl ca` is the one command of OpenSSL 3.0 that takes explicit start and end dates.
sign() { # name issuer subject extensions [startdate enddate]
    key "$1.key"
    openssl req -new -key "$1.key" -subj "/CN=$3" -out "$work/$1.csr"
    printf '%s\n' "$4" >"$work/$1.ext"
    : >"$work/index.txt"
    cat >"$work/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $work/index.txt
new_certs_dir = $work
serial = $work/serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
CNF
    openssl rand -hex 16 >"$work/serial"
    local dates=(-days $days)
    if [ $# -ge 6 ]; then dates=(-startdate "$5" -enddate "$6"); fi
    openssl ca -batch -notext -config "$work/ca.cnf" -cert "$2.pem" -keyfile "$2.key" \
        -in "$work/$1.csr" -out "$1.pem" -extfile "$work/$1.ext" "${dates[@]}" 2>/dev/null
}

server_ext='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1'

ca ca "Kringle Test CA"
ca client-ca "Kringle Test Client CA"
sign localhost ca localhost "$server_ext"
sign localhost-next ca localhost "$server_ext"
sign expired ca localhost "$server_ext" 20000101000000Z 20000102000000Z
sign wrong-host ca wrong.example "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:wrong.example"
sign client client-ca "Kringle Test Client" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"
key self-signed.key
openssl req -x509 -new -key self-signed.key -out self-signed.pem -days $days -subj "/CN=localhost" \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "basicConstraints=CA:FALSE"
openssl pkey -in client.key -aes256 -passout pass:kringle -out client-encrypted.key
# The pin as README documents it: SHA-256 of the DER SubjectPublicKeyInfo, base64.
pin() { # name
    printf 'sha256//%s\n' "$(openssl x509 -in "$1.pem" -pubkey -noout | openssl pkey -pubin -outform der \
        | openssl dgst -sha256 -binary | openssl base64)" >"$1.pin"
}
pin localhost
pin localhost-next
ls
