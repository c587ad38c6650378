"""Risk and utility metrics over plain arrays (original Z, protected Z', labels)."""

from .anonymity import group_sizes, group_stats, k_anonymity
from .utility import information_loss, partition_information_loss, sse, sse_by_attribute, sst

__all__ = ["group_sizes", "group_stats", "k_anonymity", "information_loss", "partition_information_loss",
           "sse", "sse_by_attribute", "sst"]
