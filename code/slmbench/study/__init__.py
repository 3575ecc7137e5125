"""A study is a folder: its config.yaml, the Snakemake deployment that runs the slmbench workflow there, and
everything its runs write (records, tables, figures, paper, audit site). ``slmbench init`` makes one."""

from slmbench.study.folder import StudyFolderError, next_commands, write_study

__all__ = ["StudyFolderError", "next_commands", "write_study"]
