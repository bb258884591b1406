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
