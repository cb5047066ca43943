"""Threads mixing every path at once: single calls with the GIL held,
batches without it (Snowflakes always, UUIDv7s and ULIDs from 4096 on),
and a Snowflake waiting for its clock.  Under the TSan pass
(run.sh tsan) these are what shows a data race in the module."""
import threading
import time
import uuid

import pytest

import chronoid
from util import SLOW_LAYOUT, assert_unique_and_increasing_each, in_threads, use_up_fresh_tick


def test_thread_mix_of_single_calls_and_gil_free_batches():
    gen = chronoid.Snowflake("time:41,node:2,seq:20;epoch=2023-01-01", node=2)

    def work():
        flakes, mono, v7 = [], [], []
        for _ in range(4):
            flakes.append(gen.next())
            flakes.extend(gen.batch(500))
            flakes.extend(gen.batch_array(500))
            mono.append(chronoid.ulid_monotonic())
            mono.extend(chronoid.ulid_monotonic_batch(5000))
            v7.append(chronoid.uuid7())
            b = chronoid.uuid7_batch_bytes(5000)
            v7.extend(uuid.UUID(bytes=b[i:i + 16]) for i in range(0, len(b), 16))
        return flakes, mono, v7

    runs = in_threads(work)
    for k in range(3):
        assert_unique_and_increasing_each([run[k] for run in runs])


def test_thread_waiting_in_next_blocks_renode():
    # The waiter waits about a second for its tick without the GIL;
    # meanwhile renode() and next_at() must refuse (the waiter reads the
    # node), and other threads run.
    gen = chronoid.Snowflake(SLOW_LAYOUT, node=1)
    use_up_fresh_tick(gen)
    got = []
    t = threading.Thread(target=lambda: got.append(gen.next()))
    t.start()
    # Until the waiter is in, next_at() in the used-up tick says WouldWait
    # (and mints nothing); once it is in, next_at() refuses.
    deadline = time.monotonic() + 0.5
    while True:
        with pytest.raises(chronoid.GeneratorError) as e:
            gen.next_at(time.time_ns())
        if "waiting" in str(e.value) or time.monotonic() > deadline:
            break
        time.sleep(0.001)
    assert "another thread is waiting" in str(e.value)
    with pytest.raises(chronoid.GeneratorError, match="waiting"):
        gen.renode(2)
    t.join()
    assert gen.node == 1 and gen.decode(got[0]).node == 1
    gen.renode(2)  # once nobody waits
    assert gen.decode(gen.next()).node == 2
