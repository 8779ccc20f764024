//! Every attribute syntax and op of the HLO text reader, parsed and printed
//! back exactly (canonical form in, same text out). Whole modules printed
//! back exactly (control flow, custom calls and feeds, XLA's dialect read
//! into the canonical text) are filetests in `tests/filetests/text/`.

use rxla_ir::{Op, parse_module, print_module};

/// Parses `text`, prints it, and checks the printed form equals `text`.
fn exact(text: &str) {
    let m = parse_module(text, "t.hlo").unwrap_or_else(|e| panic!("{e}\n--- in ---\n{text}"));
    let printed = print_module(&m);
    assert_eq!(printed, text, "print differs from input");
}

/// Wraps instruction lines in a module with an ENTRY computation whose
/// parameters are `params`, plus helper computations `add`, `lt`.
fn module(layout: &str, body: &str) -> String {
    format!(
        "HloModule m, entry_computation_layout={{{layout}}}\n\n\
add {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\n\n\
lt {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = pred[] compare(a, b), direction=LT\n}}\n\n\
ENTRY main {{\n{body}}}\n"
    )
}

fn entry_op(text: &str) -> Op {
    let m = parse_module(text, "t.hlo").unwrap();
    m.entry_computation().root_instruction().op.clone()
}

#[test]
fn broadcast_transpose_reverse_reshape() {
    exact(&module(
        "(f32[2,3]{1,0})->f32[3,2]{1,0}",
        "  p = f32[2,3]{1,0} parameter(0)\n  b = f32[4,2,3]{2,1,0} broadcast(p), dimensions={1,2}\n  r = f32[4,2,3]{2,1,0} reverse(b), dimensions={0,2}\n  s = f32[24]{0} reshape(r)\n  t = f32[3,2]{0,1} transpose(p), dimensions={1,0}\n  ROOT c = f32[3,2]{1,0} copy(t)\n",
    ));
}

#[test]
fn slice_and_dynamic_slice() {
    let t = module(
        "(f32[4,6]{1,0}, s32[])->f32[2,3]{1,0}",
        "  p = f32[4,6]{1,0} parameter(0)\n  i = s32[] parameter(1)\n  s = f32[2,3]{1,0} slice(p), slice={[0:2], [0:6:2]}\n  d = f32[2,3]{1,0} dynamic-slice(p, i, i), dynamic_slice_sizes={2,3}\n  ROOT u = f32[2,3]{1,0} dynamic-update-slice(s, d, i, i)\n",
    );
    exact(&t);
    // The default stride may be written explicitly.
    let t2 = t.replace("[0:2]", "[0:2:1]");
    let m = parse_module(&t2, "t").unwrap();
    assert_eq!(print_module(&m), t);
}

#[test]
fn pad_concatenate_iota() {
    exact(&module(
        "(f32[2,3]{1,0})->f32[5,10]{1,0}",
        "  p = f32[2,3]{1,0} parameter(0)\n  z = f32[] constant(0)\n  a = f32[5,9]{1,0} pad(p, z), padding=0_1_2x1_1_2\n  b = f32[5,1]{1,0} iota(), iota_dimension=0\n  ROOT c = f32[5,10]{1,0} concatenate(a, b), dimensions={1}\n",
    ));
    exact(&module(
        "(f32[2,3]{1,0})->f32[3,5]{1,0}",
        "  p = f32[2,3]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT a = f32[3,5]{1,0} pad(p, z), padding=0_1x-1_3\n",
    ));
}

#[test]
fn dot_dims() {
    exact(&module(
        "(f32[5,2,3]{2,1,0}, f32[5,3,4]{2,1,0})->f32[5,2,4]{2,1,0}",
        "  a = f32[5,2,3]{2,1,0} parameter(0)\n  b = f32[5,3,4]{2,1,0} parameter(1)\n  ROOT d = f32[5,2,4]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={default,default}\n",
    ));
    match entry_op(&module(
        "(f32[2,3]{1,0}, f32[3]{0})->f32[2]{0}",
        "  a = f32[2,3]{1,0} parameter(0)\n  b = f32[3]{0} parameter(1)\n  ROOT d = f32[2]{0} dot(a, b), rhs_contracting_dims={0}, lhs_contracting_dims={1}\n",
    )) {
        Op::Dot { dims } => {
            assert_eq!(dims.lhs_contracting, vec![1]);
            assert_eq!(dims.rhs_contracting, vec![0]);
            assert!(dims.lhs_batch.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn convolution_windows_and_labels() {
    exact(&module(
        "(f32[1,2,5,5]{3,2,1,0}, f32[3,2,3,3]{3,2,1,0})->f32[1,3,3,3]{3,2,1,0}",
        "  x = f32[1,2,5,5]{3,2,1,0} parameter(0)\n  w = f32[3,2,3,3]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,3,3,3]{3,2,1,0} convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1}, dim_labels=bf01_oi01->bf01\n"
            .replace(" lhs_dilate=1x1 rhs_dilate=1x1", "")
            .as_str(),
    ));
    exact(&module(
        "(f32[1,5,5,4]{3,2,1,0}, f32[3,3,2,6]{3,2,1,0})->f32[1,5,5,6]{3,2,1,0}",
        "  x = f32[1,5,5,4]{3,2,1,0} parameter(0)\n  w = f32[3,3,2,6]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,5,5,6]{3,2,1,0} convolution(x, w), window={size=3x3 pad=2_2x2_2 lhs_dilate=1x1 rhs_dilate=2x2 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=2\n"
            .replace(" lhs_dilate=1x1", "")
            .as_str(),
    ));
    match entry_op(&module(
        "(f32[1,2,5,5]{3,2,1,0}, f32[3,2,3,3]{3,2,1,0})->f32[1,3,2,7]{3,2,1,0}",
        "  x = f32[1,2,5,5]{3,2,1,0} parameter(0)\n  w = f32[3,2,3,3]{3,2,1,0} parameter(1)\n  ROOT c = f32[1,3,2,7]{3,2,1,0} convolution(x, w), window={size=3x3 stride=2x1 lhs_dilate=1x2}, dim_labels=bf01_oi01->bf01, batch_group_count=1\n",
    )) {
        Op::Convolution {
            window,
            feature_group_count,
            batch_group_count,
            ..
        } => {
            assert_eq!(window.dims[0].stride, 2);
            assert_eq!(window.dims[1].base_dilation, 2);
            assert_eq!((feature_group_count, batch_group_count), (1, 1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn reduce_reduce_window_select_and_scatter_map_sort() {
    exact(&module(
        "(f32[4,6]{1,0})->f32[4]{0}",
        "  p = f32[4,6]{1,0} parameter(0)\n  z = f32[] constant(0)\n  r = f32[4]{0} reduce(p, z), dimensions={1}, to_apply=add\n  w = f32[2,3]{1,0} reduce-window(p, z), window={size=2x2 stride=2x2}, to_apply=add\n  s = f32[4,6]{1,0} select-and-scatter(p, w, z), window={size=2x2 stride=2x2}, select=lt, scatter=add\n  m = f32[4,6]{1,0} map(p, s), dimensions={0,1}, to_apply=add\n  o = f32[4,6]{1,0} sort(m), dimensions={1}, is_stable=true, to_apply=lt\n  ROOT q = f32[4]{0} reduce(o, z), dimensions={1}, to_apply=add\n",
    ));
}

#[test]
fn map_without_dimensions_means_all() {
    let t = module(
        "(f32[4,6]{1,0})->f32[4,6]{1,0}",
        "  p = f32[4,6]{1,0} parameter(0)\n  ROOT m = f32[4,6]{1,0} map(p, p), to_apply=add\n",
    );
    match entry_op(&t) {
        Op::Map { dimensions, .. } => assert_eq!(dimensions, vec![0, 1]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn compare_select_clamp_convert() {
    exact(&module(
        "(f32[3]{0}, s32[3]{0})->f32[3]{0}",
        "  a = f32[3]{0} parameter(0)\n  i = s32[3]{0} parameter(1)\n  c = pred[3]{0} compare(a, a), direction=GE, type=TOTALORDER\n  u = pred[3]{0} compare(i, i), direction=NE, type=UNSIGNED\n  f = f32[3]{0} convert(i)\n  b = s32[3]{0} bitcast-convert(a)\n  k = f32[3]{0} clamp(a, f, a)\n  ROOT s = f32[3]{0} select(c, k, a)\n",
    ));
}

#[test]
fn gather_and_scatter_dims() {
    exact(&module(
        "(f32[5,3]{1,0}, s32[2,1]{1,0})->f32[5,3]{1,0}",
        "  x = f32[5,3]{1,0} parameter(0)\n  i = s32[2,1]{1,0} parameter(1)\n  g = f32[2,3]{1,0} gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true\n  ROOT s = f32[5,3]{1,0} scatter(x, i, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=add\n",
    ));
    exact(&module(
        "(f32[2,5,3]{2,1,0}, s32[2,4,1]{2,1,0})->f32[2,4,3]{2,1,0}",
        "  x = f32[2,5,3]{2,1,0} parameter(0)\n  i = s32[2,4,1]{2,1,0} parameter(1)\n  ROOT g = f32[2,4,3]{2,1,0} gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}\n",
    ));
    exact(&module(
        "(f32[2,5]{1,0}, s32[2,1]{1,0}, f32[2]{0})->f32[2,5]{1,0}",
        "  x = f32[2,5]{1,0} parameter(0)\n  i = s32[2,1]{1,0} parameter(1)\n  u = f32[2]{0} parameter(2)\n  ROOT s = f32[2,5]{1,0} scatter(x, i, u), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, indices_are_sorted=true, to_apply=add\n",
    ));
}

#[test]
fn verbatim_attributes_keep_order_and_text() {
    let t = module(
        "(f32[2]{0})->f32[2]{0}",
        "  p = f32[2]{0} parameter(0), metadata={op_name=\"x\" source_file=\"a, b.py\"}, sharding={replicated}\n  ROOT n = f32[2]{0} negate(p), backend_config={\"a\":{\"b\":[1,2]}}, frontend_attributes={k=\"v\"}, control-predecessors={p}, statistics_viz=\"s}\"\n",
    );
    exact(&t);
    let m = parse_module(&t, "t").unwrap();
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.attr("backend_config"), Some("{\"a\":{\"b\":[1,2]}}"));
    assert_eq!(root.attr("control-predecessors"), Some("{p}"));
    assert_eq!(
        root.attrs
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        vec![
            "backend_config",
            "frontend_attributes",
            "control-predecessors",
            "statistics_viz"
        ]
    );
}

#[test]
fn constants() {
    exact(&module(
        "()->(f32[2,2]{1,0}, pred[2]{0}, (s32[], f32[1]{0}))",
        "  a = f32[2,2]{1,0} constant({ {1, -inf}, {nan, 1.5e-7} })\n  b = pred[2]{0} constant({true, false})\n  c = (s32[], f32[1]{0}) constant((1, {2}))\n  e = f32[0]{0} constant({})\n  h = bf16[] constant(0.5)\n  ROOT t = (f32[2,2]{1,0}, pred[2]{0}, (s32[], f32[1]{0})) tuple(a, b, c)\n",
    ));
}

#[test]
fn layouts_and_header() {
    let t = "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1:T(2,128):S(1)}}, is_scheduled=true, frontend_attributes={a=\"b\"}\n\nENTRY main {\n  p = f32[2,3]{0,1} parameter(0)\n  b = f32[3,2]{1,0} bitcast(p)\n  q = f32[2,3]{0,1:P(3,5):V(-1)} copy(p)\n  ROOT c = f32[2,3]{0,1:T(2,128):S(1)} copy(q)\n}\n";
    exact(t);
    let m = parse_module(t, "t").unwrap();
    assert_eq!(
        m.attrs,
        vec![
            ("is_scheduled".to_string(), "true".to_string()),
            ("frontend_attributes".to_string(), "{a=\"b\"}".to_string()),
        ]
    );
    assert_eq!(
        m.entry_layout.as_ref().unwrap().to_string(),
        "(f32[2,3]{0,1})->f32[2,3]{0,1:T(2,128):S(1)}"
    );
}

#[test]
fn public_helpers() {
    use rxla_ir::text::{
        parse_literal, parse_program_shape, parse_shape, print_computation, print_instruction,
    };
    let s = parse_shape("(f32[2,3]{0,1}, s32[])").unwrap();
    assert_eq!(s.to_string(), "(f32[2,3]{0,1}, s32[])");
    let l = parse_literal("({ {1, 2, 3}, {4, 5, 6} }, 7)", &s).unwrap();
    assert_eq!(l.to_text(), "({ {1, 2, 3}, {4, 5, 6} }, 7)");
    let p = parse_program_shape("(f32[2], s32[])->f32[2]").unwrap();
    assert_eq!(p.to_string(), "(f32[2]{0}, s32[])->f32[2]{0}");
    let t = module(
        "(f32[2]{0})->f32[2]{0}",
        "  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n",
    );
    let m = parse_module(&t, "t").unwrap();
    assert_eq!(
        print_computation(&m, m.entry),
        "ENTRY main {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
    );
    let c = m.entry_computation();
    assert_eq!(
        print_instruction(&m, c, c.root),
        "ROOT n = f32[2]{0} negate(p)"
    );
    assert_eq!(
        print_instruction(&m, c, rxla_ir::InstrId(0)),
        "p = f32[2]{0} parameter(0)"
    );
}

#[test]
fn batch_groups_and_quoted_backend_config() {
    exact(&module(
        "(f32[4,2,5,5]{3,2,1,0}, f32[6,2,3,3]{3,2,1,0})->f32[2,6,3,3]{3,2,1,0}",
        "  x = f32[4,2,5,5]{3,2,1,0} parameter(0)\n  w = f32[6,2,3,3]{3,2,1,0} parameter(1)\n  ROOT c = f32[2,6,3,3]{3,2,1,0} convolution(x, w), window={size=3x3}, dim_labels=bf01_oi01->bf01, batch_group_count=2, backend_config=\"{\\\"k\\\": 1}\", precision_config={highest,highest}\n",
    ));
}

#[test]
fn pad_defaults_and_scalar_pad() {
    // A rank-0 pad prints without `padding=` and parses back.
    exact(&module(
        "(f32[])->f32[]",
        "  p = f32[] parameter(0)\n  ROOT q = f32[] pad(p, p)\n",
    ));
    // A missing `padding=` on a ranked pad means no padding.
    let t = module(
        "(f32[2,3]{1,0})->f32[2,3]{1,0}",
        "  p = f32[2,3]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT q = f32[2,3]{1,0} pad(p, z)\n",
    );
    let m = parse_module(&t, "t").unwrap();
    assert!(print_module(&m).contains("pad(p, z), padding=0_0x0_0\n"));
}

#[test]
fn empty_padding_value_is_rank_zero() {
    // XLA writes a rank-0 pad as `padding=` with nothing after it.
    let t = "HloModule fuzz, entry_computation_layout={()->bf16[]}\n\nENTRY main {\n  constant.3 = bf16[] constant(0)\n  ROOT pad.11 = bf16[] pad(constant.3, constant.3), padding=\n}\n";
    let m = parse_module(t, "t").unwrap();
    match &m.entry_computation().root_instruction().op {
        Op::Pad { config } => assert!(config.is_empty()),
        other => panic!("{other:?}"),
    }
    assert!(print_module(&m).contains("pad(constant.3, constant.3)\n"));
    // Other attributes may be empty too and are kept verbatim.
    let t = module(
        "(f32[])->f32[]",
        "  p = f32[] parameter(0)\n  ROOT q = f32[] negate(p), statistics_viz=, origin=1\n",
    );
    exact(&t);
}

#[test]
fn collectives_print_back_exactly() {
    exact(&module(
        "(f32[2]{0})->(f32[2]{0}, f32[8]{0}, f32[1]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[8]{0}, u32[], u32[], (f32[2]{0}, f32[2]{0}))",
        &[
            "  x = f32[2]{0} parameter(0)\n",
            "  ars = f32[2]{0} all-reduce-start(x), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=add\n",
            "  ar = f32[2]{0} all-reduce-done(ars)\n",
            "  ag = f32[8]{0} all-gather(ar), channel_id=2, replica_groups=[1,4]<=[2,2]T(1,0), dimensions={0}\n",
            "  rs = f32[1]{0} reduce-scatter(x), replica_groups={{0,1},{2,3}}, dimensions={0}, to_apply=add\n",
            "  a2a = f32[2]{0} all-to-all(x), replica_groups={{0,1},{2,3}}, dimensions={0}\n",
            "  cb = f32[2]{0} collective-broadcast(x), channel_id=4, replica_groups={{1,0}}\n",
            "  cps = (f32[2]{0}, f32[2]{0}, u32[], u32[]) collective-permute-start(x), channel_id=5, source_target_pairs={{0,1},{1,0}}\n",
            "  cpd = f32[2]{0} collective-permute-done(cps)\n",
            "  cp = f32[2]{0} collective-permute(x), source_target_pairs={}\n",
            "  ags = (f32[2]{0}, f32[8]{0}) all-gather-start(x), replica_groups={}, dimensions={0}, constrain_layout=true\n",
            "  agd = f32[8]{0} all-gather-done(ags)\n",
            "  r = u32[] replica-id()\n",
            "  p = u32[] partition-id()\n",
            "  t2 = (f32[2]{0}, f32[2]{0}) all-to-all(x, x), replica_groups={{0,1}}\n",
            "  ROOT t = (f32[2]{0}, f32[8]{0}, f32[1]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[2]{0}, f32[8]{0}, u32[], u32[], (f32[2]{0}, f32[2]{0})) tuple(ar, ag, rs, a2a, cb, cpd, cp, agd, r, p, t2)\n",
        ]
        .concat(),
    ));
    let m = parse_module(
        "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT ag = f32[4] all-gather(x), replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}\n}\n",
        "t.hlo",
    )
    .unwrap();
    match &m.entry_computation().root_instruction().op {
        Op::AllGather { attrs, dimension } => {
            assert_eq!(*dimension, 0);
            assert_eq!(
                attrs.replica_groups.groups().unwrap(),
                vec![vec![0, 2], vec![1, 3]]
            );
        }
        op => panic!("{op:?}"),
    }
}
