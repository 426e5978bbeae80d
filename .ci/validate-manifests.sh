#!/usr/bin/env bash
# Generate every target's output on simulated nodes and validate it offline:
# Kubernetes objects with kubernetes-validate --strict (1.29 and 1.34; DRA at its API's release),
# CDI specs with the CDI JSON schema (tests/fixtures/cdi-schema) and the CDI name/version rules.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${GPUSHARE_BIN:-target/debug/gpushare}
fx=tests/fixtures/k8s
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
checked=0

gen() { # gen NAME ARGS... : gpushare manifests ARGS --out $work/NAME
    local name=$1; shift
    "$bin" -q "$@" --out "$work/$name" >/dev/null
}

k8s_validate() { # k8s_validate DIR VERSION... : every object file of DIR, strictly
    local dir=$1 out; shift
    for v in "$@"; do
        local files=("$dir"/*.yaml)
        if ! out=$(kubernetes-validate --quiet --strict -k "$v" "${files[@]}" 2>&1); then
            echo "FAIL k8s $v $dir"; echo "$out"; failed=$((failed + 1))
        elif grep -q "Couldn't find schema" <<<"$out"; then
            echo "FAIL k8s $v $dir: an object has no schema"; echo "$out"; failed=$((failed + 1))
        fi
        checked=$((checked + ${#files[@]}))
    done
}

cdi_validate() { # cdi_validate DIR
    for f in "$1"/*.yaml; do
        if ! check-jsonschema --quiet --schemafile tests/fixtures/cdi-schema/schema.json \
            --base-uri "file://$PWD/tests/fixtures/cdi-schema/" "$f"; then
            echo "FAIL cdi schema $f"; failed=$((failed + 1))
        fi
        if ! python3 .ci/cdi_rules.py "$f"; then
            echo "FAIL cdi rules $f"; failed=$((failed + 1))
        fi
        checked=$((checked + 2))
    done
}

balanced=(--sim "$fx/dgx-a100-balanced.toml")
for node in "dgx-a100" "balanced" "layout" "mixed" "t4-mps" "t4-ts"; do
    case $node in
        dgx-a100) sim=(--sim dgx-a100) ;;
        balanced) sim=("${balanced[@]}") ;;
        layout) sim=(--sim dgx-a100 manifests -c "$fx/balanced.toml") ;;
        mixed) sim=(--sim mixed manifests -c "$fx/mixed.toml") ;;
        t4-mps) sim=(--sim t4x4 manifests -c "$fx/t4-mps.toml") ;;
        t4-ts) sim=(--sim t4x4 manifests -c "$fx/t4-time-slicing.toml") ;;
    esac
    [[ ${sim[*]} == *manifests* ]] || sim+=(manifests)
    for target in nvidia-device-plugin gpushare-extender dra dra-plugin agent controller grafana-dashboard; do
        extra=(--examples)
        [[ $target == agent || $target == controller || $target == dra-plugin ]] && extra+=(--image gpushare=registry.example.com/gpushare:0.1.0)
        [[ $target == agent && $node != layout && $node != mixed && $node != t4-* ]] && continue
        [[ $target == controller && $node != dgx-a100 ]] && continue
        [[ $target == grafana-dashboard && $node != dgx-a100 ]] && continue
        dir="$node-$target"
        if ! err=$(gen "$dir" "${sim[@]}" --target "$target" "${extra[@]}" 2>&1); then
            # A layout the target refuses (the refusals are tested in tests/integration/manifests.rs).
            echo "refused: $node $target: $(head -1 <<<"$err")"
            continue
        fi
        if [[ $target == dra-plugin ]]; then
            k8s_validate "$work/$dir" 1.34.0
        elif [[ $target == dra ]]; then
            k8s_validate "$work/$dir" 1.34.0
            for v in 32 33 36; do
                gen "$dir-$v" "${sim[@]}" --target dra --examples --k8s-version "1.$v"
                k8s_validate "$work/$dir-$v" "1.$v.0"
            done
        elif [[ $target == agent ]]; then
            # The own-node admission policy is written from 1.30 (admissionregistration/v1 and
            # bound tokens' node claim); for 1.29 the agent's manifests leave it out.
            k8s_validate "$work/$dir" 1.34.0
            gen "$dir-29" "${sim[@]}" --target agent "${extra[@]}" --k8s-version 1.29
            k8s_validate "$work/$dir-29" 1.29.0
        else
            k8s_validate "$work/$dir" 1.29.0 1.34.0
        fi
    done
    if gen "$node-cdi" "${sim[@]}" --target cdi 2>/dev/null; then
        cdi_validate "$work/$node-cdi"
    fi
done

echo "manifests: $checked checks, $failed failed"
[[ $failed == 0 ]]
