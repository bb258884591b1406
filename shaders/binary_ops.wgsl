// binary_ops.wgsl: one function per (binary op, compute type). Arithmetic
// wraps for integers (u8 modulo 256); integer division truncates and x/0 is
// x, as is MIN/-1, so no invocation ever divides by zero or overflows.
// Comparisons return 0 or 1 and are false when either float is NaN (Ne:
// true); Maximum and Minimum return NaN when either input is NaN.

fn bi_add_f32(a: f32, b: f32) -> f32 { return a + b; }
fn bi_sub_f32(a: f32, b: f32) -> f32 { return a - b; }
fn bi_mul_f32(a: f32, b: f32) -> f32 { return a * b; }
fn bi_div_f32(a: f32, b: f32) -> f32 { return a / b; }
fn bi_pow_f32(a: f32, b: f32) -> f32 { return m_pow(a, b); }
fn bi_maximum_f32(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) {
        return f32_nan();
    }
    return select(b, a, a > b);
}
fn bi_minimum_f32(a: f32, b: f32) -> f32 {
    if (is_nan(a) || is_nan(b)) {
        return f32_nan();
    }
    return select(b, a, a < b);
}
fn f32_ordered(a: f32, b: f32) -> bool { return !is_nan(a) && !is_nan(b); }
fn bi_eq_f32(a: f32, b: f32) -> u32 { return select(0u, 1u, f32_ordered(a, b) && a == b); }
fn bi_ne_f32(a: f32, b: f32) -> u32 { return select(1u, 0u, f32_ordered(a, b) && a == b); }
fn bi_lt_f32(a: f32, b: f32) -> u32 { return select(0u, 1u, f32_ordered(a, b) && a < b); }
fn bi_le_f32(a: f32, b: f32) -> u32 { return select(0u, 1u, f32_ordered(a, b) && a <= b); }
fn bi_gt_f32(a: f32, b: f32) -> u32 { return select(0u, 1u, f32_ordered(a, b) && a > b); }
fn bi_ge_f32(a: f32, b: f32) -> u32 { return select(0u, 1u, f32_ordered(a, b) && a >= b); }

fn bi_add_i32(a: i32, b: i32) -> i32 { return a + b; }
fn bi_sub_i32(a: i32, b: i32) -> i32 { return a - b; }
fn bi_mul_i32(a: i32, b: i32) -> i32 { return a * b; }
fn bi_div_i32(a: i32, b: i32) -> i32 {
    let bad = b == 0 || (a == bitcast<i32>(0x80000000u) && b == -1);
    let q = a / select(b, 1, bad);
    return select(q, a, bad);
}
fn bi_maximum_i32(a: i32, b: i32) -> i32 { return max(a, b); }
fn bi_minimum_i32(a: i32, b: i32) -> i32 { return min(a, b); }
fn bi_eq_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a == b); }
fn bi_ne_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a != b); }
fn bi_lt_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a < b); }
fn bi_le_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a <= b); }
fn bi_gt_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a > b); }
fn bi_ge_i32(a: i32, b: i32) -> u32 { return select(0u, 1u, a >= b); }

fn bi_add_u8(a: u32, b: u32) -> u32 { return (a + b) & 0xffu; }
fn bi_sub_u8(a: u32, b: u32) -> u32 { return (a - b) & 0xffu; }
fn bi_mul_u8(a: u32, b: u32) -> u32 { return (a * b) & 0xffu; }
fn bi_div_u8(a: u32, b: u32) -> u32 {
    let q = a / select(b, 1u, b == 0u);
    return select(q, a, b == 0u);
}
fn bi_maximum_u8(a: u32, b: u32) -> u32 { return max(a, b); }
fn bi_minimum_u8(a: u32, b: u32) -> u32 { return min(a, b); }
fn bi_eq_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a == b); }
fn bi_ne_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a != b); }
fn bi_lt_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a < b); }
fn bi_le_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a <= b); }
fn bi_gt_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a > b); }
fn bi_ge_u8(a: u32, b: u32) -> u32 { return select(0u, 1u, a >= b); }
