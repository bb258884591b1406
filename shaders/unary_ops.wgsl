// unary_ops.wgsl: one function per (unary op, compute type). The generator
// names the one a kernel calls; the others are never referenced.
// f32 serves F32 and F16 (decoded), i32 serves I32, u8 serves U8 (values
// 0..255 held in u32; results wrap modulo 256).

fn un_neg_f32(x: f32) -> f32 { return -x; }
fn un_abs_f32(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }
fn un_sign_f32(x: f32) -> f32 {
    if (is_nan(x) || x == 0.0) {
        return x;
    }
    return select(-1.0, 1.0, x > 0.0);
}
fn un_square_f32(x: f32) -> f32 { return x * x; }
// -0 gives +0, as the CPU backend's max(x, 0) does; NaN stays NaN.
fn un_relu_f32(x: f32) -> f32 { return select(x, 0.0, x < 0.0 || bitcast<u32>(x) == 0x80000000u); }
fn un_exp_f32(x: f32) -> f32 { return m_exp(x); }
fn un_log_f32(x: f32) -> f32 {
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
        // Near 1 the builtin's absolute error swamps a small result; x - 1
        // is exact here, and log1p keeps full relative accuracy.
        return m_log1p(x - 1.0);
    }
    return log(x);
}
fn un_sqrt_f32(x: f32) -> f32 {
    if (is_nan(x)) {
        return x;
    }
    if (x < 0.0) {
        return f32_nan();
    }
    return sqrt(x);
}
fn un_rsqrt_f32(x: f32) -> f32 {
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
fn un_sin_f32(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) {
        return f32_nan();
    }
    return sin(x);
}
fn un_cos_f32(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) {
        return f32_nan();
    }
    return cos(x);
}
fn un_tanh_f32(x: f32) -> f32 { return m_tanh(x); }
fn un_sigmoid_f32(x: f32) -> f32 { return m_sigmoid(x); }
fn un_gelutanh_f32(x: f32) -> f32 { return m_gelu_tanh(x); }
fn un_geluerf_f32(x: f32) -> f32 { return m_gelu_erf(x); }
fn un_erf_f32(x: f32) -> f32 { return m_erf(x); }
fn un_log1p_f32(x: f32) -> f32 { return m_log1p(x); }
fn un_expm1_f32(x: f32) -> f32 { return m_expm1(x); }
fn un_floor_f32(x: f32) -> f32 { return floor(x); }
fn un_ceil_f32(x: f32) -> f32 { return ceil(x); }
fn un_round_f32(x: f32) -> f32 { return round(x); }
fn un_reciprocal_f32(x: f32) -> f32 { return 1.0 / x; }

fn un_neg_i32(x: i32) -> i32 { return 0 - x; }
fn un_abs_i32(x: i32) -> i32 { return select(x, 0 - x, x < 0); }
fn un_sign_i32(x: i32) -> i32 { return select(select(0, 1, x > 0), -1, x < 0); }
fn un_square_i32(x: i32) -> i32 { return x * x; }
fn un_relu_i32(x: i32) -> i32 { return max(x, 0); }

fn un_neg_u8(x: u32) -> u32 { return (0u - x) & 0xffu; }
fn un_abs_u8(x: u32) -> u32 { return x; }
fn un_sign_u8(x: u32) -> u32 { return select(0u, 1u, x != 0u); }
fn un_square_u8(x: u32) -> u32 { return (x * x) & 0xffu; }
fn un_relu_u8(x: u32) -> u32 { return x; }
