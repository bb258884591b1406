// reduce_ops.wgsl: identities and combiners of the reductions, named
// <op>_<acc>_ident / _comb, and the "better" tests of the arg reductions,
// <op>_<acc>_better(v, i, best, besti). A NaN counts as the largest and the
// smallest value and wins over numbers; among equals the lower index wins,
// so the result is the first occurrence whatever order partial results are
// combined in. besti == 0xffffffff marks "nothing seen yet".

fn sum_f32_ident() -> f32 { return 0.0; }
fn sum_f32_comb(a: f32, b: f32) -> f32 { return a + b; }
fn prod_f32_ident() -> f32 { return 1.0; }
fn prod_f32_comb(a: f32, b: f32) -> f32 { return a * b; }
fn max_f32_ident() -> f32 { return -f32_inf(); }
fn max_f32_comb(a: f32, b: f32) -> f32 {
    if (is_nan(a)) {
        return a;
    }
    if (is_nan(b)) {
        return b;
    }
    return select(a, b, b > a);
}
fn min_f32_ident() -> f32 { return f32_inf(); }
fn min_f32_comb(a: f32, b: f32) -> f32 {
    if (is_nan(a)) {
        return a;
    }
    if (is_nan(b)) {
        return b;
    }
    return select(a, b, b < a);
}

fn sum_i32_ident() -> i32 { return 0; }
fn sum_i32_comb(a: i32, b: i32) -> i32 { return a + b; }
fn prod_i32_ident() -> i32 { return 1; }
fn prod_i32_comb(a: i32, b: i32) -> i32 { return a * b; }
fn max_i32_ident() -> i32 { return bitcast<i32>(0x80000000u); }
fn max_i32_comb(a: i32, b: i32) -> i32 { return max(a, b); }
fn min_i32_ident() -> i32 { return 2147483647; }
fn min_i32_comb(a: i32, b: i32) -> i32 { return min(a, b); }

fn sum_u32_ident() -> u32 { return 0u; }
fn sum_u32_comb(a: u32, b: u32) -> u32 { return a + b; }
fn prod_u32_ident() -> u32 { return 1u; }
fn prod_u32_comb(a: u32, b: u32) -> u32 { return a * b; }
fn max_u32_ident() -> u32 { return 0u; }
fn max_u32_comb(a: u32, b: u32) -> u32 { return max(a, b); }
fn min_u32_ident() -> u32 { return 0xffffffffu; }
fn min_u32_comb(a: u32, b: u32) -> u32 { return min(a, b); }

// Integer Sum and Prod accumulate in 64 bits, (lo, hi) pairs: the I64
// result, exact until it wraps modulo 2^64.
//#include int64.wgsl
fn sum_w64_ident() -> vec2<u32> { return vec2<u32>(0u, 0u); }
fn sum_w64_comb(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return add64(a, b); }
fn prod_w64_ident() -> vec2<u32> { return vec2<u32>(1u, 0u); }
fn prod_w64_comb(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return mul64(a, b); }
fn max_w64_ident() -> vec2<u32> { return vec2<u32>(0u, 0x80000000u); }
fn max_w64_comb(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return max64(a, b); }
fn min_w64_ident() -> vec2<u32> { return vec2<u32>(0xffffffffu, 0x7fffffffu); }
fn min_w64_comb(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return min64(a, b); }

// The arg reductions start from "nothing seen" (index 0xffffffff); the
// value beside it is never compared.
fn argmax_f32_ident() -> f32 { return 0.0; }
fn argmin_f32_ident() -> f32 { return 0.0; }
fn argmax_i32_ident() -> i32 { return 0; }
fn argmin_i32_ident() -> i32 { return 0; }
fn argmax_u32_ident() -> u32 { return 0u; }
fn argmin_u32_ident() -> u32 { return 0u; }
fn argmax_w64_ident() -> vec2<u32> { return vec2<u32>(0u, 0u); }
fn argmin_w64_ident() -> vec2<u32> { return vec2<u32>(0u, 0u); }

fn argmax_f32_better(v: f32, i: u32, b: f32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    if (i == 0xffffffffu) {
        return false;
    }
    if (is_nan(b)) {
        return is_nan(v) && i < bi;
    }
    if (is_nan(v)) {
        return true;
    }
    return v > b || (v == b && i < bi);
}
fn argmin_f32_better(v: f32, i: u32, b: f32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    if (i == 0xffffffffu) {
        return false;
    }
    if (is_nan(b)) {
        return is_nan(v) && i < bi;
    }
    if (is_nan(v)) {
        return true;
    }
    return v < b || (v == b && i < bi);
}
fn argmax_i32_better(v: i32, i: u32, b: i32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (v > b || (v == b && i < bi));
}
fn argmin_i32_better(v: i32, i: u32, b: i32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (v < b || (v == b && i < bi));
}
fn argmax_u32_better(v: u32, i: u32, b: u32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (v > b || (v == b && i < bi));
}
fn argmin_u32_better(v: u32, i: u32, b: u32, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (v < b || (v == b && i < bi));
}

fn argmax_w64_better(v: vec2<u32>, i: u32, b: vec2<u32>, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (lt64(b, v) || (eq64(v, b) && i < bi));
}
fn argmin_w64_better(v: vec2<u32>, i: u32, b: vec2<u32>, bi: u32) -> bool {
    if (bi == 0xffffffffu) {
        return i != 0xffffffffu;
    }
    return i != 0xffffffffu && (lt64(v, b) || (eq64(v, b) && i < bi));
}

// Final conversions of an accumulator to the stored value.
fn fin_f32(v: f32) -> f32 { return v; }
fn fin_i32(v: i32) -> i32 { return v; }
fn fin_u8(v: u32) -> u32 { return v & 0xffu; }
fn fin_bool(v: u32) -> u32 { return select(0u, 1u, v != 0u); }
