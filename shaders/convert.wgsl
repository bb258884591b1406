// convert.wgsl: dtype conversions for Copy, named cvt_<from>_<to> over the
// compute kinds f (f32, also F16 decoded), i (i32), u (U8 and Bool, 0..255 in
// u32) and l (I64 as (lo, hi) u32 pairs). Floats to integers truncate toward
// zero and saturate, NaN gives 0; integers to narrower integers wrap; any
// value to Bool is value != 0 (NaN is true).

fn cvt_f_f(x: f32) -> f32 { return x; }
fn cvt_f_i(x: f32) -> i32 {
    if (is_nan(x)) {
        return 0;
    }
    if (x >= 2147483648.0) {
        return 2147483647;
    }
    if (x <= -2147483648.0) {
        return bitcast<i32>(0x80000000u);
    }
    return i32(x);
}
fn cvt_f_u8(x: f32) -> u32 {
    if (is_nan(x) || x <= 0.0) {
        return 0u;
    }
    if (x >= 255.0) {
        return 255u;
    }
    return u32(x);
}
fn cvt_f_b(x: f32) -> u32 { return select(1u, 0u, x == 0.0 && !is_nan(x)); }
fn cvt_f_l(x: f32) -> vec2<u32> {
    if (is_nan(x)) {
        return vec2<u32>(0u, 0u);
    }
    if (x >= 9223372036854775808.0) {
        return vec2<u32>(0xffffffffu, 0x7fffffffu);
    }
    if (x <= -9223372036854775808.0) {
        return vec2<u32>(0u, 0x80000000u);
    }
    let t = trunc(x);
    if (abs(t) < 2147483648.0) {
        let i = i32(t);
        return vec2<u32>(bitcast<u32>(i), select(0u, 0xffffffffu, i < 0));
    }
    let hi = floor(t * 2.3283064365386963e-10);
    let lo = t - hi * 4294967296.0;
    return vec2<u32>(u32(lo), bitcast<u32>(i32(hi)));
}

fn cvt_i_f(x: i32) -> f32 { return f32(x); }
fn cvt_i_i(x: i32) -> i32 { return x; }
fn cvt_i_u8(x: i32) -> u32 { return bitcast<u32>(x) & 0xffu; }
fn cvt_i_b(x: i32) -> u32 { return select(0u, 1u, x != 0); }
fn cvt_i_l(x: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0)); }

fn cvt_u_f(x: u32) -> f32 { return f32(x); }
fn cvt_u_i(x: u32) -> i32 { return i32(x); }
fn cvt_u_u8(x: u32) -> u32 { return x & 0xffu; }
fn cvt_u_b(x: u32) -> u32 { return select(0u, 1u, x != 0u); }
fn cvt_u_l(x: u32) -> vec2<u32> { return vec2<u32>(x, 0u); }

// I64 to f32: exact or correctly rounded when the value fits in 32 bits,
// otherwise within one unit in the last place.
fn cvt_l_f(v: vec2<u32>) -> f32 {
    let hi = bitcast<i32>(v.y);
    if (hi == 0) {
        return f32(v.x);
    }
    if (hi == -1 && v.x >= 0x80000000u) {
        return f32(bitcast<i32>(v.x));
    }
    return f32(hi) * 4294967296.0 + f32(v.x);
}
fn cvt_l_i(v: vec2<u32>) -> i32 { return bitcast<i32>(v.x); }
fn cvt_l_u8(v: vec2<u32>) -> u32 { return v.x & 0xffu; }
fn cvt_l_b(v: vec2<u32>) -> u32 { return select(0u, 1u, (v.x | v.y) != 0u); }
fn cvt_l_l(v: vec2<u32>) -> vec2<u32> { return v; }

// cvt_raw moves 32 or 16 stored bits unchanged (same-dtype copies).
fn cvt_raw(x: u32) -> u32 { return x; }
