;; The vector side of hybrid retrieval, scored with WebAssembly SIMD (docs/documents.md "Vectors in memory").
;; `scores` writes, for each of `rows` vectors laid one after another from `vectors`, its dot product with the
;; vector at `query` into the next Float32 from `out`. Every vector, the query's included, is `row_bytes` long: its
;; floats padded with zeros to a multiple of 16 floats (64 bytes), so the loop takes 16 floats a step, four lanes in
;; each of four sums. Built into dot-kernel-wasm.ts by scripts/build-dot-kernel.ts.
(module
  (import "env" "memory" (memory 1))
  (func (export "scores")
    (param $query i32) (param $vectors i32) (param $rows i32) (param $row_bytes i32) (param $out i32)
    (local $end i32) (local $done i32) (local $q i32) (local $v i32)
    (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    (local.set $v (local.get $vectors))
    (block $all_rows
      (loop $row
        (br_if $all_rows (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $c (v128.const i64x2 0 0))
        (local.set $d (v128.const i64x2 0 0))
        (local.set $q (local.get $query))
        (local.set $done (i32.const 0))
        (loop $column
          (local.set $a (f32x4.add (local.get $a)
            (f32x4.mul (v128.load (local.get $q)) (v128.load (local.get $v)))))
          (local.set $b (f32x4.add (local.get $b)
            (f32x4.mul (v128.load offset=16 (local.get $q)) (v128.load offset=16 (local.get $v)))))
          (local.set $c (f32x4.add (local.get $c)
            (f32x4.mul (v128.load offset=32 (local.get $q)) (v128.load offset=32 (local.get $v)))))
          (local.set $d (f32x4.add (local.get $d)
            (f32x4.mul (v128.load offset=48 (local.get $q)) (v128.load offset=48 (local.get $v)))))
          (local.set $q (i32.add (local.get $q) (i32.const 64)))
          (local.set $v (i32.add (local.get $v) (i32.const 64)))
          (local.set $done (i32.add (local.get $done) (i32.const 64)))
          (br_if $column (i32.lt_u (local.get $done) (local.get $row_bytes))))
        (local.set $a (f32x4.add (f32x4.add (local.get $a) (local.get $b)) (f32x4.add (local.get $c) (local.get $d))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $a)) (f32x4.extract_lane 1 (local.get $a)))
            (f32.add (f32x4.extract_lane 2 (local.get $a)) (f32x4.extract_lane 3 (local.get $a)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row)))))
