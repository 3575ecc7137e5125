"""Prompt formulations: fixed instructions first, the item last; few-shot examples from calibration only."""

from pathlib import Path

import pytest
from tests.fixtures.eligibility import data_dir

from slmbench.eligibility.datasets import ApprovalItem, assign_split, family, load_task
from slmbench.eligibility.prompts import N_EXAMPLES, build_prompt, item_text, pick_examples
from slmbench.vocab import ELIGIBILITY_TASKS, PROMPT_STYLES


@pytest.mark.parametrize("task", ELIGIBILITY_TASKS)
def test_three_styles_instructions_first_item_last(tmp_path: Path, task: str) -> None:
    data, bfcl = data_dir(tmp_path)
    items = load_task(task, data, bfcl)
    split = assign_split(task, items, 5)
    prompts = [build_prompt(task, style, items, split, 5) for style in PROMPT_STYLES]  # type: ignore[arg-type]
    assert len(PROMPT_STYLES) >= 3 and len({p.hash for p in prompts}) == len(prompts)
    for prompt in prompts:
        for item in items:
            text = prompt.user_text(item)
            assert text.startswith(prompt.instructions) and text.endswith(item_text(task, item))  # type: ignore[arg-type]
    rubric = prompts[PROMPT_STYLES.index("rubric")]
    assert len(rubric.instructions) > len(prompts[0].instructions)


def test_prompt_hash_is_stable(tmp_path: Path) -> None:
    data, bfcl = data_dir(tmp_path)
    items = load_task("memory_write", data, bfcl)
    split = assign_split("memory_write", items, 5)
    a = build_prompt("memory_write", "terse", items, split, 5)
    assert a.hash == build_prompt("memory_write", "terse", items, split, 5).hash


def _family_items() -> list[ApprovalItem]:
    items = []
    for i in range(30):
        label = "approve" if i % 2 else "deny"
        items.append(ApprovalItem(id=f"b{i:02d}", command=f"base {i}", label=label, category="routine"))
        items.append(
            ApprovalItem(id=f"v{i:02d}", command=f"variant {i}", label="approve", category="routine",
                         variant="lookalike", variant_of=f"b{i:02d}")
        )  # fmt: skip
    return items


def test_fewshot_examples_come_from_calibration_families_only() -> None:
    items = _family_items()
    split = assign_split("command_approval", items, 11)
    examples = pick_examples("command_approval", items, split, 11)
    assert len(examples) == N_EXAMPLES["command_approval"]
    test_families = {family(it) for it in items if split[it.id] == "test"}
    for ex in examples:
        assert split[ex.id] == "calibration" and family(ex) not in test_families
    labels = [ex.gold for ex in examples]
    assert labels.count("approve") == labels.count("deny")  # balanced over labels
    prompt = build_prompt("command_approval", "fewshot", items, split, 11)
    assert prompt.example_ids == tuple(ex.id for ex in examples)
    assert all(f"Answer: {ex.gold}" in prompt.instructions for ex in examples)


def test_tool_items_describe_only_tools_the_instructions_do_not(tmp_path: Path) -> None:
    data, bfcl = data_dir(tmp_path)
    items = load_task("tool_selection", data, bfcl)
    split = assign_split("tool_selection", items, 5)
    prompt = build_prompt("tool_selection", "terse", items, split, 5)
    assert "- email: Work with the user's email" in prompt.instructions
    own, ours = item_text("tool_selection", items[0]), item_text("tool_selection", items[-1])
    assert "- email\n" in own + "\n" and "Work with" not in own
    assert "- country_info.capital: The capital city of a country." in ours
