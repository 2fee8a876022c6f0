"""The package's type stubs (python/precis/__init__.pyi, with py.typed) and docstrings: the stubs
parse; every name of precis.__all__ has a docstring and a stub entry, and the stub names no
other; every public method and property of the public classes has a docstring and a stub
entry; the stub's parameters are the real functions' (names, in order)."""
import ast
import inspect
import pathlib

import pytest

import precis

PACKAGE = pathlib.Path(precis.__file__).resolve().parent


def stub_tree():
    return ast.parse((PACKAGE / "__init__.pyi").read_text(), filename="__init__.pyi")


def stub_entries(body):
    """name -> node for the definitions of a module's or class's body."""
    entries = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            entries[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            entries[node.target.id] = node
    return entries


def public_members(cls):
    """The class's own public methods and properties (what help() shows as its API)."""
    return {name: value for name, value in vars(cls).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, (property, classmethod)))}


def parameters(node):
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    return names + ([f"*{a.vararg.arg}"] if a.vararg else []) + ([f"**{a.kwarg.arg}"] if a.kwarg else [])


def real_parameters(function):
    out = []
    for p in inspect.signature(function).parameters.values():
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append(prefix + p.name)
    return out


def test_py_typed_ships_beside_the_stubs():
    assert (PACKAGE / "py.typed").exists()


def test_every_public_name_has_a_docstring_and_a_stub():
    stubs = stub_entries(stub_tree().body)
    assert set(precis.__all__) <= set(stubs), sorted(set(precis.__all__) - set(stubs))
    assert {n for n in stubs if not n.startswith("_")} == set(precis.__all__)
    for name in precis.__all__:
        obj = getattr(precis, name)
        assert (obj.__doc__ or "").strip(), f"precis.{name} has no docstring"
        if inspect.isclass(obj) and name not in ("Error", "TrainOutput", "PublishResult"):
            members = stub_entries(stubs[name].body)
            for member, value in public_members(obj).items():
                doc = (value.fget if isinstance(value, property) else getattr(value, "__func__", value)).__doc__
                assert (doc or "").strip(), f"precis.{name}.{member} has no docstring"
                assert member in members, f"precis.{name}.{member} is missing from __init__.pyi"


@pytest.mark.parametrize("name", [n for n in precis.__all__ if inspect.isfunction(getattr(precis, n))])
def test_stub_parameters_are_the_functions(name):
    assert parameters(stub_entries(stub_tree().body)[name]) == real_parameters(getattr(precis, name))
