# Ed25519 signature VERIFY only (RFC 8032 §5.1.7), for update bundles (issue 33).
#
# MicroPython has no Ed25519 and its hashlib has no sha512, so both are here in plain
# Python (big ints). Verify only: the board holds public keys, never a secret, so nothing
# here needs to be constant-time. The hub signs with PyNaCl (hub/fleet/bundle.py), and
# tests/firmware check this against PyNaCl-made signatures on the unix port.
# Cost on the emulated RP2040: docs/performance.md, "Issue 33".

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

_K = None
_M64 = 0xFFFFFFFFFFFFFFFF


def _k():
    global _K
    if _K is None:  # the first 64 bits of the fractional parts of the cube roots of the first 80 primes
        _K = [int(x, 16) for x in (
            "428a2f98d728ae22 7137449123ef65cd b5c0fbcfec4d3b2f e9b5dba58189dbbc 3956c25bf348b538 "
            "59f111f1b605d019 923f82a4af194f9b ab1c5ed5da6d8118 d807aa98a3030242 12835b0145706fbe "
            "243185be4ee4b28c 550c7dc3d5ffb4e2 72be5d74f27b896f 80deb1fe3b1696b1 9bdc06a725c71235 "
            "c19bf174cf692694 e49b69c19ef14ad2 efbe4786384f25e3 0fc19dc68b8cd5b5 240ca1cc77ac9c65 "
            "2de92c6f592b0275 4a7484aa6ea6e483 5cb0a9dcbd41fbd4 76f988da831153b5 983e5152ee66dfab "
            "a831c66d2db43210 b00327c898fb213f bf597fc7beef0ee4 c6e00bf33da88fc2 d5a79147930aa725 "
            "06ca6351e003826f 142929670a0e6e70 27b70a8546d22ffc 2e1b21385c26c926 4d2c6dfc5ac42aed "
            "53380d139d95b3df 650a73548baf63de 766a0abb3c77b2a8 81c2c92e47edaee6 92722c851482353b "
            "a2bfe8a14cf10364 a81a664bbc423001 c24b8b70d0f89791 c76c51a30654be30 d192e819d6ef5218 "
            "d69906245565a910 f40e35855771202a 106aa07032bbd1b8 19a4c116b8d2d0c8 1e376c085141ab53 "
            "2748774cdf8eeb99 34b0bcb5e19b48a8 391c0cb3c5c95a63 4ed8aa4ae3418acb 5b9cca4f7763e373 "
            "682e6ff3d6b2b8a3 748f82ee5defb2fc 78a5636f43172f60 84c87814a1f0ab72 8cc702081a6439ec "
            "90befffa23631e28 a4506cebde82bde9 bef9a3f7b2c67915 c67178f2e372532b ca273eceea26619c "
            "d186b8c721c0c207 eada7dd6cde0eb1e f57d4f7fee6ed178 06f067aa72176fba 0a637dc5a2c898a6 "
            "113f9804bef90dae 1b710b35131c471b 28db77f523047d84 32caab7b40c72493 3c9ebe0a15c9bebc "
            "431d67c49c100d4c 4cc5d4becb3e42b6 597f299cfc657e2a 5fcb6fab3ad6faec 6c44198c4a475817"
        ).split()]
    return _K


def _ror(x, n):
    return ((x >> n) | (x << (64 - n))) & _M64


def sha512(data):
    """SHA-512 of bytes (FIPS 180-4), in plain Python: hashlib.sha512 when there is one."""
    import hashlib

    native = getattr(hashlib, "sha512", None)
    if native is not None:
        return native(data).digest()
    k = _k()
    h = [0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
         0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179]
    n = len(data)
    data = bytes(data) + b"\x80" + b"\x00" * ((111 - n) % 128) + (n * 8).to_bytes(16, "big")
    for block in range(0, len(data), 128):
        w = [int.from_bytes(data[block + 8 * i: block + 8 * i + 8], "big") for i in range(16)]
        for i in range(16, 80):
            a, b = w[i - 15], w[i - 2]
            s0 = _ror(a, 1) ^ _ror(a, 8) ^ (a >> 7)
            s1 = _ror(b, 19) ^ _ror(b, 61) ^ (b >> 6)
            w.append((w[i - 16] + s0 + w[i - 7] + s1) & _M64)
        a, b, c, d, e, f, g, hh = h
        for i in range(80):
            t1 = (hh + (_ror(e, 14) ^ _ror(e, 18) ^ _ror(e, 41)) + ((e & f) ^ ((e ^ _M64) & g)) + k[i] + w[i]) & _M64
            t2 = ((_ror(a, 28) ^ _ror(a, 34) ^ _ror(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))) & _M64
            hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & _M64, c, b, a, (t1 + t2) & _M64
        v = (a, b, c, d, e, f, g, hh)
        h = [(h[i] + v[i]) & _M64 for i in range(8)]
    return b"".join(x.to_bytes(8, "big") for x in h)


# Points in extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, x*y = T/Z.
def _add(p, q):
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double_mul(s, p, h, q, tick=None):
    """[s]p + [h]q in one double-and-add pass (Shamir's trick: one doubling per bit for
    both products, half the work of two passes); s, h < 2**253."""
    pq = _add(p, q)
    r = (0, 1, 1, 0)
    for i in range(252, -1, -1):
        r = _add(r, r)
        bs, bh = (s >> i) & 1, (h >> i) & 1
        if bs and bh:
            r = _add(r, pq)
        elif bs:
            r = _add(r, p)
        elif bh:
            r = _add(r, q)
        if tick is not None and i & 15 == 0:
            tick()
    return r


def _equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def _decode_point(s):
    """The point encoded in 32 bytes, or None when they encode none."""
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        if sign:
            return None
        x = 0
    else:
        x = pow(x2, (P + 3) // 8, P)
        if (x * x - x2) % P != 0:
            x = x * SQRT_M1 % P
        if (x * x - x2) % P != 0:
            return None
        if (x & 1) != sign:
            x = P - x
    return (x, y, 1, x * y % P)


def _base():
    y = 4 * pow(5, P - 2, P) % P
    return _decode_point(y.to_bytes(32, "little"))


def verify(public, message, signature, tick=None):
    """True when `signature` (64 bytes) is `public`'s (32 bytes) Ed25519 signature of
    `message` (bytes). Never raises on junk: False. `tick()` is called every few
    milliseconds of the ~1.3 s it takes on an RP2040 (the board feeds its watchdog)."""
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public)
    r = _decode_point(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    h = int.from_bytes(sha512(bytes(signature[:32]) + bytes(public) + bytes(message)), "little") % L
    minus_a = ((P - a[0]) % P, a[1], a[2], (P - a[3]) % P)
    return _equal(_double_mul(s, _base(), h, minus_a, tick), r)  # [s]B - [h]A == R
