"""Makes the fault-server fixtures available to the tests in this folder."""

from tests.support.fixtures import fault_server

__all__ = ["fault_server"]
