// math.wgsl: float functions WGSL lacks or defines too loosely, written to
// stay accurate near 0 and finite (no inf/inf NaN) for large |x|.

// Whether the sign bit of x is set (true for -0, which x < 0 misses).
fn is_neg(x: f32) -> bool {
    return (bitcast<u32>(x) >> 31u) == 1u;
}

fn f32_neg_zero() -> f32 {
    return bitcast<f32>(0x80000000u);
}

// 2^k for -126 <= k <= 127, built from its bit pattern (exact, no exp2).
fn m_pow2i(k: i32) -> f32 {
    return bitcast<f32>(u32(k + 127) << 23u);
}

// exp(x) to about 1 ulp. Drivers may implement the builtin as
// exp2(x*log2(e)), whose rounding of x*log2(e) costs up to ~100 ulp near
// the overflow threshold; here x = n*ln2 + r with a two-part ln2 (n*LN2_HI
// is exact), exp(r) is a degree-7 polynomial on |r| <= ln2/2, and 2^n is
// applied as two exact powers of two so that n = 128 does not overflow
// early. Results below the normal range may be flushed, as WGSL allows.
fn m_exp(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x > 88.72284) {
        return f32_inf();
    }
    if (x < -103.97209) {
        return 0.0;
    }
    let n = round(x * 1.4426950408889634);
    let r = (x - n * 0.693145751953125) - n * 1.4286068203094173e-6;
    let q = r * r * (0.5 + r * (1.6666667e-1 + r * (4.1666668e-2 + r * (8.333334e-3
        + r * (1.3888889e-3 + r * 1.984127e-4)))));
    let e = 1.0 + (r + q);
    let k = i32(n);
    let k1 = k / 2;
    return e * m_pow2i(k1) * m_pow2i(k - k1);
}

// exp(x) - 1: a Taylor polynomial where exp(x) - 1 would cancel.
fn m_expm1(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (abs(x) < 0.5) {
        let p = 1.0 + x * (0.5 + x * (1.6666667e-1 + x * (4.1666668e-2 + x * (8.333334e-3
            + x * (1.3888889e-3 + x * (1.984127e-4 + x * (2.4801588e-5 + x * 2.7557319e-6)))))));
        return x * p;
    }
    return m_exp(x) - 1.0;
}

// log(1 + x): 2*atanh(x / (2 + x)) as a series near 0, where log(1 + x)
// would lose the low bits of x.
fn m_log1p(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < -1.0) {
        return f32_nan();
    }
    if (x == -1.0) {
        return -f32_inf();
    }
    if (abs(x) < 0.5) {
        let s = x / (2.0 + x);
        let s2 = s * s;
        let p = 1.0 + s2 * (3.3333334e-1 + s2 * (2.0e-1 + s2 * (1.4285715e-1 + s2 * (1.1111111e-1
            + s2 * (9.090909e-2 + s2 * (7.692308e-2 + s2 * 6.6666670e-2))))));
        return 2.0 * s * p;
    }
    if (is_inf(x)) {
        return x;
    }
    return log(1.0 + x);
}

// erfc(x) for x >= 0.5 as t*exp(-x*x + P(t)), t = 1/(1 + x/2); P is a
// degree-9 fit (|log error| < 3e-9). x*x is split so its rounding does not
// reach the result's relative accuracy.
fn m_erfc_tail(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.5 * x);
    let p = -1.2655415 + t * (1.0008397 + t * (0.36455266 + t * (0.15781995 + t * (-0.42183260
        + t * (0.84964990 + t * (-2.0085417 + t * (2.3069198 + t * (-1.2507578 + t * 0.26693490))))))));
    let xh = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
    let xl = x - xh;
    return t * m_exp(-xh * xh) * m_exp(p - xl * (x + xh));
}

// erf(x)/x near 0 as a polynomial in x*x (|error| < 2e-11 for |x| < 0.5).
fn m_erf_small(x: f32) -> f32 {
    let s = x * x;
    let q = 1.1283792 + s * (-0.37612638 + s * (0.11283774 + s * (-0.026863143
        + s * (0.0052004137 + s * -0.00076945343))));
    return x * q;
}

fn m_erf(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    if (a < 0.5) {
        return m_erf_small(x);
    }
    var r = 1.0;
    if (a < 10.0) {
        r = 1.0 - m_erfc_tail(a);
    }
    return select(r, -r, x < 0.0);
}

fn m_erfc(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    if (a < 0.5) {
        return 1.0 - m_erf_small(x);
    }
    var t = 0.0;
    if (a < 10.5) {
        t = m_erfc_tail(a);
    }
    return select(t, 2.0 - t, x < 0.0);
}

// tanh(x) = -expm1(-2|x|) / (2 + expm1(-2|x|)), with the sign of x: exact
// near 0 and exactly +-1 for large |x|.
fn m_tanh(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let e = m_expm1(-2.0 * abs(x));
    let r = -e / (2.0 + e);
    return select(r, -r, is_neg(x));
}

// 1/(1 + exp(-x)), evaluated on the side where exp cannot overflow.
fn m_sigmoid(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x >= 0.0) {
        return 1.0 / (1.0 + m_exp(-x));
    }
    let e = m_exp(x);
    return e / (1.0 + e);
}

// Gelu, tanh form: 0.5*x*(1 + tanh(u)) = x*sigmoid(2u).
fn m_gelu_tanh(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let u = 0.7978845608 * (x + 0.044715 * x * x * x);
    let s = m_sigmoid(2.0 * u);
    // s == 0 only for x far below 0: the limit there is -0, and -Inf * 0
    // would be NaN.
    return select(x * s, f32_neg_zero(), s == 0.0);
}

// Gelu, erf form: 0.5*x*(1 + erf(x/sqrt 2)) = 0.5*x*erfc(-x/sqrt 2), which
// keeps relative accuracy for negative x.
fn m_gelu_erf(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let c = m_erfc(-0.70710678 * x);
    return select(0.5 * x * c, f32_neg_zero(), c == 0.0);
}

fn m_is_int(y: f32) -> bool {
    return floor(y) == y;
}

// x**y with C99/NumPy special cases: pow(x, 0) = 1 and pow(1, y) = 1 even
// for NaN; a negative base needs an integer exponent.
fn m_pow(x: f32, y: f32) -> f32 {
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (is_nan(x) || is_nan(y)) {
        return f32_nan();
    }
    let neg = (bitcast<u32>(x) >> 31u) == 1u;
    let yint = m_is_int(y);
    if (neg && x != 0.0 && !is_inf(x) && !yint && !is_inf(y)) {
        return f32_nan();
    }
    let odd = yint && abs(y) < 16777216.0 && (i32(y) & 1) == 1;
    let ax = abs(x);
    var r = 0.0;
    if (is_inf(y)) {
        if (ax == 1.0) {
            return 1.0;
        }
        r = select(0.0, f32_inf(), (ax > 1.0) == (y > 0.0));
        return r;
    }
    if (ax == 0.0) {
        r = select(f32_inf(), 0.0, y > 0.0);
    } else if (is_inf(ax)) {
        r = select(0.0, f32_inf(), y > 0.0);
    } else {
        r = exp2(y * log2(ax));
    }
    return select(r, -r, neg && odd);
}

// Helpers of the op table's shader expressions (device/optable.go).

// -1, 0 or 1; NaN and signed zeros stay as they are.
fn m_sign(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x == 0.0) {
        return 0.0; // -0 too, as NumPy's sign
    }
    return select(-1.0, 1.0, x > 0.0);
}

// log(x) with C99 special values; near 1 through log1p, where the
// builtin's absolute error would swamp a small result (x - 1 is exact there).
fn m_log(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < 0.0) {
        return f32_nan();
    }
    if (x == 0.0) {
        return -f32_inf();
    }
    if (is_inf(x)) {
        return x;
    }
    if (x > 0.5 && x < 1.5) {
        return m_log1p(x - 1.0);
    }
    return log(x);
}

// sqrt(x), NaN below 0.
fn m_sqrt(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < 0.0) {
        return f32_nan();
    }
    return sqrt(x);
}

// 1/sqrt(x): +-Inf at +-0, NaN below 0.
fn m_rsqrt(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < 0.0) {
        return f32_nan();
    }
    if (x == 0.0) {
        return select(f32_inf(), -f32_inf(), (bitcast<u32>(x) >> 31u) == 1u);
    }
    return 1.0 / sqrt(x);
}

// sin(x), NaN at +-Inf.
fn m_sin(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) {
        return f32_nan();
    }
    return sin(x);
}

// cos(x), NaN at +-Inf.
fn m_cos(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) {
        return f32_nan();
    }
    return cos(x);
}

// NaN-propagating maximum and minimum (the builtins may drop NaN).
fn m_maximum(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) {
        return f32_nan();
    }
    return select(b, a, a > b);
}

fn m_minimum(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) {
        return f32_nan();
    }
    return select(b, a, a < b);
}

// Whether neither operand is NaN: comparisons are false (Ne: true) with a
// NaN, tested on the bits because some drivers compare NaN as ordered.
fn m_ordered(a: f32, b: f32) -> bool { return !is_nan(a) && !is_nan(b); }

// Integer division that truncates, with x/0 = x and MIN/-1 = MIN, so no
// invocation divides by zero or overflows.
fn m_div_i32(a: i32, b: i32) -> i32 {
    let bad = b == 0 || (a == bitcast<i32>(0x80000000u) && b == -1);
    let q = a / select(b, 1, bad);
    return select(q, a, bad);
}

fn m_div_u32(a: u32, b: u32) -> u32 {
    let q = a / select(b, 1u, b == 0u);
    return select(q, a, b == 0u);
}

// sinh(x) = (e^x - e^-x)/2 through expm1 near 0 (no cancellation) and in
// two halves for large |x| (no early overflow).
fn m_sinh(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    var r: f32;
    if (a < 1.0) {
        let e = m_expm1(a);
        r = 0.5 * (e + e / (e + 1.0));
    } else {
        let h = m_exp(0.5 * a);
        r = (0.5 * h) * h - 0.5 / (h * h);
    }
    return select(r, -r, is_neg(x));
}

fn m_cosh(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let h = m_exp(0.5 * abs(x));
    return (0.5 * h) * h + 0.5 / (h * h);
}

// 2^x as exp(x ln 2) with the product split so its rounding does not reach
// the result: x = n + f, 2^n applied exactly.
fn m_exp2(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x >= 128.0) {
        return f32_inf();
    }
    if (x < -150.0) {
        return 0.0;
    }
    let n = round(x);
    let e = m_exp((x - n) * 0.6931471805599453);
    let k = i32(n);
    let k1 = k / 2;
    return e * m_pow2i(k1) * m_pow2i(k - k1);
}

// asin and acos through m_atan (the asin and acos builtins of some drivers
// are off by 4e-4, lavapipe's among them); the
// square root is of (1-x)(1+x), exact near |x| = 1 where 1-x*x cancels.
fn m_asin(x: f32) -> f32 {
    if (is_nan(x) || !(abs(x) <= 1.0)) {
        return f32_nan();
    }
    if (abs(x) == 1.0) {
        return select(1.5707963267948966, -1.5707963267948966, x < 0.0);
    }
    return m_atan(x / sqrt((1.0 - x) * (1.0 + x)));
}

fn m_acos(x: f32) -> f32 {
    if (is_nan(x) || !(abs(x) <= 1.0)) {
        return f32_nan();
    }
    if (x == -1.0) {
        return 3.141592653589793;
    }
    return 2.0 * m_atan(sqrt((1.0 - x) / (1.0 + x)));
}

// atan(x) with relative accuracy near 0 (the builtin of some drivers has an
// absolute error of ~3e-6 there): reduced to |x| <= tan(pi/8) through
// pi/4 + atan((x-1)/(x+1)) and pi/2 - atan(1/x), then an odd polynomial.
fn m_atan(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    let a = abs(x);
    var y = 0.0;
    var t = a;
    if (a > 2.414213562373095) {
        y = 1.5707963267948966;
        t = -1.0 / a;
    } else if (a > 0.4142135623730950) {
        y = 0.7853981633974483;
        t = (a - 1.0) / (a + 1.0);
    }
    let z = t * t;
    y = y + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t);
    return select(y, -y, is_neg(x));
}

// Whether x counts as true: nonzero, NaN included (-0 is false).
fn m_nonzero(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) != 0u;
}

// atan2(y, x) with C99's special cases: signed zeros and infinities pick
// the quadrant. The ratio is always at most 1 in magnitude (the smaller
// coordinate over the larger), so it neither overflows nor loses the
// quadrant's pi/2.
fn m_atan2(y: f32, x: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) {
        return f32_nan();
    }
    let ax = abs(x);
    let ay = abs(y);
    var r = 0.0;
    if (is_inf(x) && is_inf(y)) {
        r = select(0.7853981633974483, 2.356194490192345, is_neg(x));
    } else if (is_inf(x) || ay == 0.0) {
        r = select(0.0, 3.141592653589793, is_neg(x));
    } else if (is_inf(y) || ax == 0.0) {
        r = 1.5707963267948966;
    } else {
        if (ay <= ax) {
            r = m_atan(ay / ax);
        } else {
            r = 1.5707963267948966 - m_atan(ax / ay);
        }
        if (is_neg(x)) {
            r = 3.141592653589793 - r;
        }
    }
    return select(r, -r, is_neg(y));
}

// The significand of a finite nonzero |x| (bits xb) scaled into
// [2^23, 2^24), with the biased exponent that goes with it (below 1 for
// subnormals).
fn m_unpack(xb: u32) -> vec2<i32> {
    var e = i32(xb >> 23u);
    var m = xb & 0x7fffffu;
    if (e == 0) {
        e = 1;
        for (; m < 0x800000u; m = m << 1u) {
            e = e - 1;
        }
    } else {
        m = m | 0x800000u;
    }
    return vec2<i32>(i32(m), e);
}

// C's fmod, exact: the remainder of the long division of the significands,
// one bit per step (at most 277 steps), with the sign of a. The builtin %
// of WGSL computes a - b*trunc(a/b) in floating point, which is inexact.
fn m_fmod(a: f32, b: f32) -> f32 {
    let sa = bitcast<u32>(a) & 0x80000000u;
    let xa = bitcast<u32>(a) & 0x7fffffffu;
    let xb = bitcast<u32>(b) & 0x7fffffffu;
    if (xa >= 0x7f800000u || xb > 0x7f800000u || xb == 0u) {
        return f32_nan();
    }
    if (xa < xb) {
        return a;
    }
    let pa = m_unpack(xa);
    let pb = m_unpack(xb);
    var m = u32(pa.x);
    let d = u32(pb.x);
    for (var e = pa.y; e > pb.y; e = e - 1) {
        if (m >= d) {
            m = m - d;
        }
        m = m << 1u;
    }
    if (m >= d) {
        m = m - d;
    }
    if (m == 0u) {
        return bitcast<f32>(sa);
    }
    var e = pb.y;
    for (; m < 0x800000u; m = m << 1u) {
        e = e - 1;
    }
    var bits = (u32(e) << 23u) | (m & 0x7fffffu);
    if (e <= 0) {
        bits = m >> u32(1 - e);
    }
    return bitcast<f32>(bits | sa);
}

// The floored remainder (NumPy's mod): fmod moved by b when the signs
// differ; a zero result takes b's sign.
fn m_mod(a: f32, b: f32) -> f32 {
    let r = m_fmod(a, b);
    if (is_nan(r)) {
        return r;
    }
    if ((bitcast<u32>(r) & 0x7fffffffu) == 0u) {
        return bitcast<f32>(bitcast<u32>(b) & 0x80000000u);
    }
    return select(r, r + b, is_neg(r) != is_neg(b));
}

// NumPy's float floor division (device.floorDiv): the quotient of the
// exact a - fmod(a, b), moved down when the remainder's sign differs from
// b's and rounded to the nearest integer; a zero b gives ±Inf or NaN.
fn m_floordiv(a: f32, b: f32) -> f32 {
    if (b == 0.0) {
        if (a == 0.0 || is_nan(a)) {
            return f32_nan();
        }
        let s = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
        return bitcast<f32>(s | 0x7f800000u);
    }
    let m = m_fmod(a, b);
    var d = (a - m) / b;
    if (is_nan(d)) {
        return d;
    }
    if (m != 0.0 && is_neg(b) != is_neg(m)) {
        d = d - 1.0;
    }
    if (d == 0.0) {
        let s = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
        return bitcast<f32>(s);
    }
    var f = floor(d);
    if (d - f > 0.5) {
        f = f + 1.0;
    }
    return f;
}

// Integer floored quotients: 0 for b == 0 (NumPy's); the most negative a
// divided by -1 wraps to itself.
fn m_floordiv_i32(a: i32, b: i32) -> i32 {
    let bad = b == 0 || (a == bitcast<i32>(0x80000000u) && b == -1);
    let bb = select(b, 1, bad);
    var q = a / bb;
    if ((a % bb) != 0 && ((a < 0) != (b < 0))) {
        q = q - 1;
    }
    return select(q, select(0, a, b != 0), bad);
}

fn m_floordiv_u32(a: u32, b: u32) -> u32 {
    return select(a / select(b, 1u, b == 0u), 0u, b == 0u);
}

// Integer remainders: 0 for b == 0 (NumPy's), and for b == -1, where the
// most negative a would overflow.
fn m_fmod_i32(a: i32, b: i32) -> i32 {
    let bad = b == 0 || b == -1;
    return select(a % select(b, 1, bad), 0, bad);
}

fn m_mod_i32(a: i32, b: i32) -> i32 {
    let r = m_fmod_i32(a, b);
    return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}

fn m_mod_u32(a: u32, b: u32) -> u32 {
    return select(a % select(b, 1u, b == 0u), 0u, b == 0u);
}

// a^b by squaring, wrapping; a negative b gives the truncated real power
// (1 or -1 for a base of 1 or -1, else 0), as device.ipow does.
fn m_ipow_i32(a: i32, b: i32) -> i32 {
    if (b < 0) {
        if (a == 1 || (a == -1 && (b & 1) == 0)) {
            return 1;
        }
        return select(0, -1, a == -1);
    }
    var r = 1;
    var x = a;
    for (var e = u32(b); e != 0u; e = e >> 1u) {
        if ((e & 1u) == 1u) {
            r = r * x;
        }
        x = x * x;
    }
    return r;
}

fn m_ipow_u32(a: u32, b: u32) -> u32 {
    var r = 1u;
    var x = a;
    for (var e = b; e != 0u; e = e >> 1u) {
        if ((e & 1u) == 1u) {
            r = r * x;
        }
        x = x * x;
    }
    return r;
}
