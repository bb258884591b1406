// int64.wgsl: 64-bit integer arithmetic on (lo, hi) pairs of u32, the
// way GPU buffers hold I64 (two's complement, wrapping modulo 2^64). The
// scans and the integer Sum and Prod reductions accumulate in it.

// The 64-bit product of two u32 as (lo, hi), from 16-bit halves.
fn mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// The product modulo 2^64 (two's complement, so signs take care of
// themselves).
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = mul32(a.x, b.x);
    return vec2<u32>(r.x, r.y + a.x * b.y + a.y * b.x);
}

// The elementwise operations on I64 (the op table's I64 shader
// expressions, device/optable.go) and the I64 Max/Min reductions build on
// the helpers below. Signed values are two's complement: the sign is the
// top bit of hi.

fn nz64(a: vec2<u32>) -> bool {
    return (a.x | a.y) != 0u;
}

fn is_neg64(a: vec2<u32>) -> bool {
    return (a.y & 0x80000000u) != 0u;
}

fn eq64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x == b.x && a.y == b.y;
}

// Signed a < b.
fn lt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return bitcast<i32>(a.y) < bitcast<i32>(b.y) || (a.y == b.y && a.x < b.x);
}

// Unsigned a < b.
fn ult64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return sub64(vec2<u32>(0u, 0u), a);
}

// |a|; the most negative value stays itself (2^63 read unsigned).
fn abs64(a: vec2<u32>) -> vec2<u32> {
    return select(a, neg64(a), is_neg64(a));
}

fn sign64(a: vec2<u32>) -> vec2<u32> {
    let one = select(vec2<u32>(0u, 0u), vec2<u32>(1u, 0u), nz64(a));
    return select(one, vec2<u32>(0xffffffffu, 0xffffffffu), is_neg64(a));
}

fn max64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt64(a, b));
}

fn min64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, lt64(b, a));
}

// The unsigned quotient a / b for b != 0: one 32-bit division when both
// fit in 32 bits, else restoring division, one bit of a per step.
fn udiv64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (a.y == 0u && b.y == 0u) {
        return vec2<u32>(a.x / b.x, 0u);
    }
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 0u; i < 64u; i = i + 1u) {
        let s = 63u - i;
        let bit = (select(a.x, a.y, s >= 32u) >> (s & 31u)) & 1u;
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if (!ult64(r, b)) {
            r = sub64(r, b);
            if (s >= 32u) {
                q.y = q.y | (1u << (s - 32u));
            } else {
                q.x = q.x | (1u << s);
            }
        }
    }
    return q;
}

// The truncated quotient, as WGSL's i32 division: a zero divisor gives
// the dividend, and the most negative value divided by -1 wraps to itself.
fn div_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (!nz64(b)) {
        return a;
    }
    let q = udiv64(abs64(a), abs64(b));
    return select(q, neg64(q), is_neg64(a) != is_neg64(b));
}

// The truncated remainder, with a's sign; 0 for a zero divisor (NumPy's).
fn fmod_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (!nz64(b)) {
        return vec2<u32>(0u, 0u);
    }
    let ua = abs64(a);
    let ub = abs64(b);
    let r = sub64(ua, mul64(udiv64(ua, ub), ub));
    return select(r, neg64(r), is_neg64(a));
}

// The floored remainder, with b's sign; 0 for a zero divisor.
fn mod_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let r = fmod_i64(a, b);
    return select(r, add64(r, b), nz64(r) && is_neg64(r) != is_neg64(b));
}

// The floored quotient; 0 for a zero divisor (NumPy's), and the most
// negative value divided by -1 wraps to itself.
fn floordiv_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (!nz64(b)) {
        return vec2<u32>(0u, 0u);
    }
    let q = div_i64(a, b);
    let down = nz64(fmod_i64(a, b)) && is_neg64(a) != is_neg64(b);
    return select(q, sub64(q, vec2<u32>(1u, 0u)), down);
}

// a^b by squaring, wrapping; a negative b gives the truncated real power
// (1 or -1 for a base of 1 or -1, else 0), as device.ipow does.
fn ipow_i64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if (is_neg64(b)) {
        let one = vec2<u32>(1u, 0u);
        let minus = vec2<u32>(0xffffffffu, 0xffffffffu);
        if (eq64(a, one) || (eq64(a, minus) && (b.x & 1u) == 0u)) {
            return one;
        }
        return select(vec2<u32>(0u, 0u), minus, eq64(a, minus));
    }
    var r = vec2<u32>(1u, 0u);
    var x = a;
    var e = b;
    for (var i = 0u; i < 64u && nz64(e); i = i + 1u) {
        if ((e.x & 1u) == 1u) {
            r = mul64(r, x);
        }
        x = mul64(x, x);
        e = vec2<u32>((e.x >> 1u) | (e.y << 31u), e.y >> 1u);
    }
    return r;
}
