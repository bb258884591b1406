// ew_src_n.wgsl: a read-only source operand of the source dtype (S_PACKED:
// binary16 pairs in u32, decoded by S_DEC), for kernels with more sources
// than ew_src_a/ew_src_b's fixed bindings. Included with arguments: NAME
// names the binding, BIND its number and LOAD its load function, as in
// "include ew_src_n.wgsl NAME=xs BIND=3 LOAD=load_x".
//#if S_PACKED
@group(0) @binding({{BIND}}) var<storage, read> {{NAME}}: array<u32>;

fn {{LOAD}}(p: i32) -> {{SC}} {
    let q = u32(p);
    return {{S_DEC}}(half_at({{NAME}}[q >> 1u], q));
}
//#else
@group(0) @binding({{BIND}}) var<storage, read> {{NAME}}: array<{{SC}}>;

fn {{LOAD}}(p: i32) -> {{SC}} {
    return {{NAME}}[p];
}
//#endif
