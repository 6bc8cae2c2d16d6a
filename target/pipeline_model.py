"""The pipeline model: frames a second of R copies of an N-stage pipeline, one stage a PE.

A discrete-event simulation of the schedule the runner keeps (issue 32): stage k of a copy
computes its frames in order, each in `compute[k]` seconds, then sends the frame's outputs
to stage k + 1 over their link in `link[k]` seconds, sends being non-blocking and
double-buffered. So stage k starts frame f when its inputs have arrived, it has finished
frame f - 1, and its send of frame f - 2 is done (its two send buffers); a send starts when
the frame is computed, the link has carried frame f - 1, and stage k + 1 has finished
frame f - 2 (its two receive buffers). Frames go to the copies in turn. Each event's time
follows from earlier ones, so they are computed in frame order.

With links faster than every stage, a copy settles at one frame per `max(compute)`, and R
copies at R / max(compute) frames a second; a slower link is the bottleneck instead.
"""

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PipelineRun:
    """The simulated run of `frames` frames."""

    frames: int
    seconds: float
    """When the last frame's outputs are ready."""
    latency_s: float
    """When the first frame's are."""

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.seconds


def simulate(compute: Sequence[float], link: Sequence[float], replicas: int = 1, frames: int = 1000) -> PipelineRun:
    """Run `frames` frames through `replicas` copies of a pipeline whose stage k computes a
    frame in `compute[k]` seconds and sends it on in `link[k]` (the last stage's send, to
    the consumer, is not counted: `link` has one entry fewer than `compute`)."""
    stages = len(compute)
    assert stages >= 1 and len(link) == stages - 1 and replicas >= 1 and frames >= 1
    # The copies differ only in their frame count (by one at most): each count is run once.
    counts = {frames // replicas + (r < frames % replicas) for r in range(replicas)} - {0}
    copies = [_simulate_copy(compute, link, count) for count in sorted(counts)]
    return PipelineRun(frames, max(ends[-1] for ends in copies), min(ends[0] for ends in copies))


def _simulate_copy(compute: Sequence[float], link: Sequence[float], frames: int) -> list[float]:
    """The time each frame's last stage finishes, in one copy."""
    stages = len(compute)
    computed = [[0.0] * frames for _ in range(stages)]  # computed[k][f]: stage k has finished frame f
    sent = [[0.0] * frames for _ in range(stages - 1)]  # sent[k][f]: frame f has reached stage k + 1
    for f in range(frames):
        for k in range(stages):
            start = sent[k - 1][f] if k else 0.0
            if f >= 1:
                start = max(start, computed[k][f - 1])
            if f >= 2 and k < stages - 1:
                start = max(start, sent[k][f - 2])
            computed[k][f] = start + compute[k]
            if k < stages - 1:
                send = computed[k][f]
                if f >= 1:
                    send = max(send, sent[k][f - 1])
                if f >= 2:
                    send = max(send, computed[k + 1][f - 2])
                sent[k][f] = send + link[k]
    return computed[-1]
