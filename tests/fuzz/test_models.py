"""The fuzzing toolkit on the model messages (every class of onnx-ml.proto), with
protobuf (upb, through onnx's generated classes) as the judge: the strategies'
messages and encodings, the corpus's model folders, the mutator's model
mutations, and ``check_parser`` against a model loader with a planted bug."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import onnx
import pytest
from google.protobuf.message import DecodeError as OracleDecodeError
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import onnxdata
from onnxdata import strategies as ods
from onnxdata._core.schema import MESSAGE, spec_of
from onnxdata._core.wire import MAX_DEPTH
from onnxdata._fuzz import model_mutations as mm
from onnxdata._fuzz import model_samples as ms
from onnxdata._fuzz import tree
from onnxdata._fuzz.all_messages import ALL_MESSAGES
from onnxdata._fuzz.corpus import CORPUS_TYPES, corpus_files
from onnxdata._fuzz.records import record, split
from onnxdata._messages.declarations import MESSAGE_TYPES
from onnxdata.fuzz import Disagreement, check_parser, mutate

FAST = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
MODEL_TYPES = [cls for cls in ALL_MESSAGES if cls not in MESSAGE_TYPES]
MODEL_FOLDERS = {spec_of(cls).name: cls for cls in CORPUS_TYPES if cls not in MESSAGE_TYPES}
AT = onnxdata.AttributeProto.AttributeType
# find(): the first example found, unshrunk (where only its existence matters).
_FIRST = settings(database=None, max_examples=1000, phases=[Phase.generate])


def oracle_class(cls: type) -> Any:
    """onnx's class of the same full name (``onnx.TypeProto.Tensor``)."""
    found: Any = onnx
    for part in spec_of(cls).name.split("."):
        found = getattr(found, part)
    return found


def upb(cls: type) -> Callable[[bytes], Any]:
    return oracle_class(cls).FromString  # type: ignore[no-any-return]


def upb_accepts(cls: type, data: bytes) -> bool:
    try:
        oracle_class(cls).FromString(data)
    except OracleDecodeError:
        return False
    return True


def ours_accepts(cls: type, data: bytes) -> bool:
    try:
        cls.decode(data)
    except onnxdata.DecodeError:
        return False
    return True


def test_every_class_of_the_proto_is_covered() -> None:
    names = set()

    def walk(descriptor: Any) -> None:
        names.add(descriptor.full_name)
        for inner in descriptor.nested_types:
            walk(inner)

    for descriptor in onnx.onnx_ml_pb2.DESCRIPTOR.message_types_by_name.values():
        walk(descriptor)
    ours = {spec_of(cls).full_name for cls in ALL_MESSAGES}
    assert names <= ours
    assert ours - names == {"onnx.SequenceProto", "onnx.MapProto", "onnx.OptionalProto"}


# -- strategies ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", MODEL_TYPES, ids=lambda c: spec_of(c).name)
def test_of_draws_messages_protobuf_reads_and_writes_back_the_same(cls: type) -> None:
    @FAST
    @given(ods.of(cls))
    def run(message: Any) -> None:
        assert type(message) is cls
        data = message.encode()
        assert oracle_class(cls).FromString(data).SerializeToString() == data
        check_parser(upb(cls), data, message=cls)

    run()


def test_of_sets_at_most_one_oneof_member_and_sometimes_one_at_its_default() -> None:
    @FAST
    @given(ods.of(onnxdata.TypeProto), ods.of(onnxdata.TensorShapeProto.Dimension))
    def run(t: Any, d: Any) -> None:
        for m, oneof in ((t, "value"), (d, "value")):
            members = spec_of(type(m)).oneofs[oneof]
            assert sum(m.HasField(f.name) for f in members) <= 1

    run()
    empty = find(
        _encoded(ods.of(onnxdata.TypeProto)),
        lambda data: _member_set_empty(onnxdata.TypeProto.decode(data)),
        settings=_FIRST,
    )
    assert oracle_class(onnxdata.TypeProto).FromString(empty).WhichOneof("value")


def _member_set_empty(t: Any) -> bool:
    which = t.WhichOneof("value")
    return which is not None and getattr(t, which).encode() == b""


@st.composite
def _encoded(draw: st.DrawFn, strategy: st.SearchStrategy[Any]) -> bytes:
    """A message's bytes: what ``find`` reports is then bytes, which hypothesis prints
    without walking the message (see the report: Message needs ``_repr_pretty_``)."""
    return draw(strategy).encode()  # type: ignore[no-any-return]


def _check_scopes(g: Any, outer: set[str], depth: int) -> int:
    """Every node reads names defined before it; every attribute sets the field its type
    names; returns the depth of subgraphs below ``g``."""
    known = outer | {v.name for v in g.input} | {t.name for t in g.initializer}
    deepest = 0
    for node in g.node:
        assert set(node.input) <= known, (node.op_type, node.input)
        for a in node.attribute:
            value_fields = set(ms.ATTRIBUTE_FIELDS.values())
            set_fields = {
                f.name
                for f in spec_of(type(a)).fields
                if f.name in value_fields
                and (a.HasField(f.name) if not f.repeated else len(getattr(a, f.name)))
            }
            assert set_fields == {ms.ATTRIBUTE_FIELDS[a.type]}, (a.type, set_fields)
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                deepest = max(deepest, 1 + _check_scopes(sub, known, depth + 1))
        known |= set(node.output)
    return deepest


@FAST
@given(ods.models(max_depth=2))
def test_models_are_shaped_as_exporters_write_them(model: Any) -> None:
    assert model.opset_import and model.opset_import[0].domain == ""
    assert model.HasField("graph") and model.graph.node
    assert _check_scopes(model.graph, set(), 0) <= 2
    for v in [*model.graph.input, *model.graph.output]:
        if v.HasField("type"):
            assert v.type.WhichOneof("value") is not None
    data = model.encode()
    assert onnx.ModelProto.FromString(data).SerializeToString() == data


@FAST
@given(ods.attributes(), ods.type_protos(), ods.nodes(), ods.graphs(max_depth=1))
def test_model_shaped_parts_are_what_protobuf_writes(a: Any, t: Any, n: Any, g: Any) -> None:
    for m in (a, t, n, g):
        data = m.encode()
        assert oracle_class(type(m)).FromString(data).SerializeToString() == data
    assert {f for f, v in ms.ATTRIBUTE_FIELDS.items() if v} and a.type in ms.ATTRIBUTE_FIELDS
    assert t.WhichOneof("value") is not None


def test_messages_takes_every_class_and_onnx_classes() -> None:
    @FAST
    @given(ods.messages(types=[onnx.ModelProto, onnxdata.ShardingSpecProto, onnx.TensorProto]))
    def run(m: Any) -> None:
        assert type(m) in (onnxdata.ModelProto, onnxdata.ShardingSpecProto, onnxdata.TensorProto)

    run()


@FAST
@given(ods.noncanonical_encodings(ods.messages(types=ALL_MESSAGES)))
def test_noncanonical_encodings_of_every_class_read_as_protobuf_reads_them(pair: Any) -> None:
    message, data = pair
    cls = type(message)
    parsed = oracle_class(cls).FromString(data)
    assert parsed.SerializeToString() == message.encode()
    assert cls.decode(data).encode() == message.encode()
    check_parser(upb(cls), data, message=cls)


@FAST
@given(ods.noncanonical_encodings(ods.models(max_depth=1)))
def test_noncanonical_encodings_of_models(pair: Any) -> None:
    message, data = pair
    assert data != message.encode()
    assert onnx.ModelProto.FromString(data).SerializeToString() == message.encode()


def _count(data: bytes, number: int) -> int:
    """How many top-level fields ``number`` has (0 for bytes that do not split)."""
    try:
        return sum(1 for n, _, _ in split(data) if n == number)
    except onnxdata.DecodeError:
        return 0


def test_noncanonical_encodings_split_the_graph_and_repeat_oneof_members() -> None:
    data = find(
        _wire(
            ods.noncanonical_encodings(
                ods.of(onnxdata.ModelProto, max_depth=1), unknown_fields=False
            )
        ),
        lambda data: _count(data[1], 7) == 2,
        settings=_FIRST,
    )
    assert onnx.ModelProto.FromString(data[1]).SerializeToString() == data[0]
    members = {f.number for f in spec_of(onnxdata.TypeProto).oneofs["value"]}
    two = find(
        _wire(
            ods.noncanonical_encodings(
                ods.of(onnxdata.TypeProto, max_depth=1), unknown_fields=False
            )
        ),
        lambda data: len({n for n, _, _ in split(data[1]) if n in members}) == 2,
        settings=_FIRST,
    )
    assert onnx.TypeProto.FromString(two[1]).SerializeToString() == two[0]


@st.composite
def _wire(draw: st.DrawFn, pairs: st.SearchStrategy[Any]) -> tuple[bytes, bytes]:
    """(canonical bytes, non-canonical bytes) of a drawn pair, printable by hypothesis."""
    message, data = draw(pairs)
    return message.encode(), data


@FAST
@given(
    ods.malformed_encodings(
        ods.messages(
            types=[
                onnxdata.ModelProto,
                onnxdata.GraphProto,
                onnxdata.AttributeProto,
                onnxdata.TypeProto,
                onnxdata.NodeProto,
            ]
        )
    )
)
def test_malformed_encodings_of_models_are_rejected_by_both(case: Any) -> None:
    cls, data, defect = case
    assert not upb_accepts(cls, data), defect
    assert not ours_accepts(cls, data), defect


# -- the corpus ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return corpus_files(count=1)


def _folder(files: dict[str, bytes], folder: str) -> dict[str, bytes]:
    return {k.split("/")[1]: v for k, v in files.items() if k.startswith(folder + "/")}


@pytest.mark.parametrize("folder", MODEL_FOLDERS)
def test_model_folders_hold_what_their_names_say(files: dict[str, bytes], folder: str) -> None:
    cls = MODEL_FOLDERS[folder]
    seen: set[str] = set()
    kinds: Counter[str] = Counter()
    for name, data in _folder(files, folder).items():
        kind = name.split("-")[0]
        kinds[kind] += 1
        if kind == "malformed":
            assert not upb_accepts(cls, data), name
            assert not ours_accepts(cls, data), name
            continue
        parsed = oracle_class(cls).FromString(data)
        assert cls.decode(data).encode() == parsed.SerializeToString(), name
        check_parser(upb(cls), data, message=cls)
        if kind == "noncanonical":
            assert parsed.SerializeToString() != data, name
        else:
            seen |= {fd.name for fd, _ in parsed.ListFields()}
            if "edge" not in name:
                assert parsed.SerializeToString() == data, name
    assert seen == {f.name for f in spec_of(cls).fields}
    assert 0.10 <= kinds["malformed"] / sum(kinds.values()) <= 0.50, kinds


def test_model_folder_has_real_models_and_defects_at_model_sites(files: dict[str, bytes]) -> None:
    names = _folder(files, "ModelProto")
    assert any(n.startswith("valid-model-subgraphs-") for n in names)
    assert any(n.startswith("valid-model-external-data-") for n in names)
    nesting = names["valid-edge-nesting-100-0.pb"]
    assert upb_accepts(onnxdata.ModelProto, nesting)
    deep = [n for n in names if "-in-graph." in n]
    assert len(deep) >= 10, deep
    assert any("malformed-nested-too-deep" in n for n in names)
    external = onnxdata.ModelProto.decode(names["valid-model-external-data-0.pb"])
    locations = [t for t in external.graph.initializer if t.data_location == 1]
    assert all(t.external_data[0].key == "location" for t in locations)


# -- the mutator -------------------------------------------------------------------------


def _seeds(n: int) -> list[bytes]:
    return [ms.model(random.Random(i), 2).encode() for i in range(n)]


def _mutants(n: int, seed: int) -> list[bytes]:
    """What a fuzzer's loop does: mutate, keep the accepted outputs as the next inputs."""
    rng = random.Random(seed)
    corpus = _seeds(6)
    out = []
    for k in range(n):
        data = mutate(
            rng.choice(corpus), 1 << 15, seed * 1_000_000 + k, message=onnxdata.ModelProto
        )
        out.append(data)
        if len(corpus) < 100 and ours_accepts(onnxdata.ModelProto, data):
            corpus.append(data)
    return out


def _agree(data: bytes) -> bool:
    check_parser(upb(onnxdata.ModelProto), data, message=onnxdata.ModelProto)
    return ours_accepts(onnxdata.ModelProto, data)


def test_model_mutants_decode_as_protobuf_decodes_them() -> None:
    accepted = [_agree(data) for data in _mutants(300, 1)]
    assert 0.3 < sum(accepted) / len(accepted) < 0.98


@pytest.mark.slow
def test_model_mutants_decode_as_protobuf_decodes_them_many() -> None:
    for seed in range(2, 6):
        for data in _mutants(3000, seed):
            _agree(data)


def _root(cls: type, message: Any) -> tree.Node:
    return tree.split(message.encode(), spec_of(cls))


def test_model_ops_are_read_from_the_schema() -> None:
    names = {cls: {op.__name__ for op in mm.model_ops(spec_of(cls))} for cls in MODEL_TYPES}
    assert "_attribute_type" in names[onnxdata.AttributeProto]
    assert "_dangle" in names[onnxdata.NodeProto]
    assert (
        "_oneof" in names[onnxdata.TypeProto] and "_oneof" in names[onnxdata.SimpleShardedDimProto]
    )
    assert {"_split_message", "_deep_nest"} <= names[onnxdata.ModelProto]
    assert "_reorder_same" in names[onnxdata.GraphProto]
    assert names[onnxdata.OperatorSetIdProto] == set()


def test_split_graph_is_merged_by_protobuf() -> None:
    model = ms.model(random.Random(3), 1)
    root = _root(onnxdata.ModelProto, model)
    while _count(root.join(), 7) < 2:
        mm._split_message(root, random.Random(len(root.fields)), [], 0)
    data = root.join()
    assert onnx.ModelProto.FromString(data).SerializeToString() == model.encode()
    assert onnxdata.ModelProto.decode(data).encode() == model.encode()


def test_oneof_swap_keeps_one_member_the_last() -> None:
    t = onnxdata.TypeProto(tensor_type=onnxdata.TypeProto.Tensor(elem_type=1))
    for seed in range(20):
        root = _root(onnxdata.TypeProto, t)
        mm._oneof(root, random.Random(seed), [], 0)
        data = root.join()
        parsed = onnx.TypeProto.FromString(data)
        ours = onnxdata.TypeProto.decode(data)
        assert ours.WhichOneof("value") == parsed.WhichOneof("value")
        last = [n for n, _, _ in split(data) if n in {1, 4, 5, 7, 8, 9}][-1]
        assert spec_of(onnxdata.TypeProto).by_number[last].name == ours.WhichOneof("value")


def test_attribute_type_mutation_sets_a_value_field_in_or_out_of_step() -> None:
    a = ms.attribute(random.Random(0), "alpha", AT.FLOAT, 0)
    in_step = out_of_step = 0
    for seed in range(40):
        root = _root(onnxdata.AttributeProto, a)
        mm._attribute_type(root, random.Random(seed), [], 0)
        ours = onnxdata.AttributeProto.decode(root.join())
        check_parser(upb(onnxdata.AttributeProto), root.join(), message=onnxdata.AttributeProto)
        wanted = ms.ATTRIBUTE_FIELDS.get(ours.type)
        f = spec_of(onnxdata.AttributeProto).by_name.get(wanted or "")
        has = f is not None and (
            len(getattr(ours, f.name)) if f.repeated else ours.HasField(f.name)
        )
        in_step += bool(has)
        out_of_step += not has
    assert in_step and out_of_step


def test_dangle_renames_a_node_input_to_an_undefined_name() -> None:
    node = onnxdata.NodeProto(op_type="Add", input=["x", "w"], output=["y"])
    root = _root(onnxdata.NodeProto, node)
    mm._dangle(root, random.Random(1), [], 0)
    renamed = onnxdata.NodeProto.decode(root.join())
    assert list(renamed.input) != ["x", "w"] and len(renamed.input) == 2


@pytest.mark.parametrize("seed", range(6))
def test_deep_nest_reaches_the_depth_limit_and_both_parsers_agree(seed: int) -> None:
    root = _root(onnxdata.ModelProto, ms.model(random.Random(seed), 0))
    mm._deep_nest(root, random.Random(seed), [], 0)
    data = root.join()
    assert upb_accepts(onnxdata.ModelProto, data) == ours_accepts(onnxdata.ModelProto, data)
    depth, body, cls = 0, data, onnxdata.ModelProto
    while True:  # follow the chain the mutation added: the longest one
        fields = spec_of(cls).by_number
        inner = [(fields[n], b) for n, _, b in split(body)
                 if n in fields and fields[n].kind == MESSAGE]  # fmt: skip
        if not inner:
            break
        f, body = max(inner, key=lambda fb: _nesting(fb[0].message, fb[1]))
        cls, depth = f.message, depth + 1
    assert MAX_DEPTH - 2 <= depth <= MAX_DEPTH + 1


def _nesting(cls: type, body: bytes) -> int:
    best = 0
    for n, _, b in split(body):
        f = spec_of(cls).by_number.get(n)
        if f is not None and f.kind == MESSAGE:
            best = max(best, 1 + _nesting(f.message, b))
    return best


def test_mutator_reaches_model_ops_on_models() -> None:
    """Across many mutations of model seeds, the outputs show split graphs, nodes
    with dangling inputs and attributes out of step with their type."""
    outputs = _mutants(400, 9)
    assert any(_count(d, 7) >= 2 for d in outputs)
    assert len(set(outputs)) > 300


# -- check_parser against a model loader -----------------------------------------------


def _skip_second_graph(data: bytes) -> Any:
    """A loader that keeps the first ``graph`` field and skips later ones (protobuf
    merges them): the planted bug."""
    kept = b""
    seen = False
    for n, wire_type, body in split(data):
        if n == 7 and seen:
            continue
        seen = seen or n == 7
        kept += record(n, wire_type, body)
    return onnx.ModelProto.FromString(kept)


def test_check_parser_finds_a_loader_that_drops_a_split_graph_with_a_small_reproducer() -> None:
    def disagrees(data: bytes) -> bool:
        try:
            check_parser(_skip_second_graph, data, message=onnxdata.ModelProto)
        except Disagreement:
            return True
        except OracleDecodeError:
            return False
        return False

    graphs = ods.of(onnxdata.GraphProto, max_depth=0)
    models = st.builds(onnxdata.ModelProto, graph=graphs, ir_version=st.integers(3, 11))
    pairs = _wire(ods.noncanonical_encodings(models, unknown_fields=False))
    data = find(
        pairs.map(lambda pair: pair[1]),
        disagrees,
        settings=settings(database=None, max_examples=1000, phases=list(Phase)),
    )
    assert _count(data, 7) == 2 and len(data) <= 16, data.hex()
    with pytest.raises(Disagreement) as info:
        check_parser(_skip_second_graph, data, message=onnxdata.ModelProto)
    assert info.value.path.startswith("ModelProto.graph")
    # The loader agrees on every model protobuf writes itself: only the split shows it.
    for seed in _seeds(5):
        check_parser(_skip_second_graph, seed, message=onnxdata.ModelProto)
