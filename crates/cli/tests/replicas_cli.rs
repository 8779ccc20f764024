//! `rxla run --replicas N` under hostile replica programs (issue 20):
//! invalid replica groups are refused on both backends with exit 1, and a
//! loop of many all-reduces on 8 replicas completes.

use crate::support;
use std::process::Output;

fn rxla(args: &[&str], stdin: &str) -> Output {
    support::rxla(args, Some(stdin))
}

#[test]
fn duplicate_replica_in_groups_is_an_error() {
    let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY e {\n  p = f32[2] constant({1, 2})\n  ROOT ar.7 = f32[2] all-reduce(p), replica_groups={{0,1},{1,2}}, to_apply=add\n}\n";
    for backend in ["jit", "interp"] {
        let out = rxla(&["run", "-", "--replicas", "3", "--backend", backend], text);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{backend}: {err}");
        assert!(
            err.contains("ar.7: replica 1 appears more than once in replica_groups"),
            "{backend}: {err}"
        );
    }
}

#[test]
fn many_all_reduces_on_eight_replicas() {
    let text = "HloModule l\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n\ncond {\n  s = (s32[], f32[256]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(2000)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n\nbody {\n  s = (s32[], f32[256]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  x = f32[256] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  q = f32[] constant(0.125)\n  qb = f32[256] broadcast(q), dimensions={}\n  y = f32[256] multiply(x, qb)\n  z = f32[256] all-reduce(y), replica_groups={}, to_apply=add\n  ROOT t = (s32[], f32[256]) tuple(j, z)\n}\n\nENTRY e {\n  p = f32[] constant(1)\n  b = f32[256] broadcast(p), dimensions={}\n  z = s32[] constant(0)\n  t = (s32[], f32[256]) tuple(z, b)\n  w = (s32[], f32[256]) while(t), condition=cond, body=body\n  ROOT r = f32[256] get-tuple-element(w), index=1\n}\n";
    for backend in ["jit", "interp"] {
        let out = rxla(&["run", "-", "--replicas", "8", "--backend", backend], text);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {err}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("// replica 7"), "{backend}: {stdout}");
    }
}

#[test]
fn replicas_and_partitions_print_every_device() {
    // Each device contributes replica-id·10 + partition-id; the all-gather
    // over every device (channel + flattened ids) is the same everywhere.
    let text = "HloModule m\n\nENTRY e {\n  r = u32[] replica-id()\n  p = u32[] partition-id()\n  ten = u32[] constant(10)\n  rt = u32[] multiply(r, ten)\n  v = u32[] add(rt, p)\n  b = u32[1] broadcast(v), dimensions={}\n  ROOT ag = u32[4] all-gather(b), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, dimensions={0}\n}\n";
    for backend in ["jit", "interp"] {
        let out = rxla(
            &[
                "run",
                "-",
                "--replicas",
                "2",
                "--partitions",
                "2",
                "--backend",
                backend,
            ],
            text,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {err}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("// replica 1 partition 1 (device 3)"),
            "{backend}: {stdout}"
        );
        assert_eq!(
            stdout.matches("{0, 1, 10, 11}").count(),
            4,
            "{backend}: {stdout}"
        );
        // Wrong device counts are errors naming the module's declaration.
        let bad = text.replace("HloModule m", "HloModule m, num_partitions=4");
        let out = rxla(
            &[
                "run",
                "-",
                "--replicas",
                "2",
                "--partitions",
                "2",
                "--backend",
                backend,
            ],
            &bad,
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{backend}: {err}");
        assert!(err.contains("num_partitions=4"), "{backend}: {err}");
    }
}
