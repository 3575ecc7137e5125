"""The build a trial ran on, read from its fingerprint."""

from __future__ import annotations

from slmbench.records.fingerprint import build_of

MACHINE = {"machine": {"cpu": "AMD EPYC"}}


def test_a_portable_build_is_its_identity_and_an_older_in_process_record_its_native_build() -> None:
    assert build_of(
        {**MACHINE, "backend": {"backend": "llamacpp", "build": {"identity": "79c865e05a44a8d4"}}}
    ) == ("79c865e05a44a8d4")
    assert build_of({**MACHINE, "backend": {"backend": "llamacpp"}}) == "native/AMD EPYC"


def test_a_users_server_ran_on_its_own_build_which_the_client_cannot_name() -> None:
    assert (
        build_of({**MACHINE, "backend": {"backend": "openai", "server": {"build_info": "b1-0c1e570"}}})
        is None
    )
    assert build_of({**MACHINE, "backend": {"backend": "ollama"}}) is None


def test_a_server_the_runner_started_names_the_build_it_was_compiled_as() -> None:
    served = {**MACHINE, "backend": {"backend": "openai"}}
    assert build_of(served, {"build": {"identity": "79c865e05a44a8d4"}}) == "79c865e05a44a8d4"
    assert build_of(served, {}) == "native/AMD EPYC"  # started before the portable build
