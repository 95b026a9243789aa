"""Options shared by the unit tests (tests/) and the conformance suite (conformance/)."""


def pytest_addoption(parser):
    parser.addoption(
        "--backend",
        action="append",
        default=None,
        help="run on this backend (repeatable); default: numpy and array_api_strict",
    )
    parser.addoption("--device", default=None, help="device for --backend (e.g. 'cpu', '0', 'device1')")
