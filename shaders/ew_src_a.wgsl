// ew_src_a.wgsl: source operand 'a' (binding 2) and its load function.
// S_PACKED: binary16 pairs in u32, decoded by S_DEC; S_WIDE: (lo, hi) pairs.
//#if S_PACKED
@group(0) @binding(2) var<storage, read> a: array<u32>;

fn load_a(p: i32) -> {{SC}} {
    let q = u32(p);
    return {{S_DEC}}(half_at(a[q >> 1u], q));
}
//#elif S_WIDE
@group(0) @binding(2) var<storage, read> a: array<u32>;

fn load_a(p: i32) -> vec2<u32> {
    return vec2<u32>(a[2 * p], a[2 * p + 1]);
}
//#else
@group(0) @binding(2) var<storage, read> a: array<{{SC}}>;

fn load_a(p: i32) -> {{SC}} {
    return a[p];
}
//#endif
