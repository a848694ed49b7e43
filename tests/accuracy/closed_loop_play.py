# closed_loop_play.py - plays NVIDIA NIM's closed-loop load tests
# (tensorrt_llm rows of tests/data/serving_loadtests.json with prompts of
# 200-1,000 tokens and a TTFT under a second: below saturation) iteration by iteration on
# TensorRT-LLM's in-flight batching scheduler, to see which arrival pattern
# the measured mean TTFT fits (docs/serving.md, "Known misses"):
#   lockstep  every user's first request at t = 0, every length fixed, each
#             user back as its last token leaves plus a random delay
#             (exponential, mean jitter_ms: client, network, front end);
#   random    the same users started at random phases and their answers
#             spread uniformly over +-spread of the mean: the steady state
#             the planner's arrival-rate closed loop stands for.
# The scheduler: generation tokens first, then waiting prompts first come
# first served up to max_num_tokens 8192, the last one chunked
# (NVIDIA/TensorRT-LLM docs/source/features/paged-attention-ifb-scheduler.md);
# an idle engine starts an iteration as soon as a request arrives.  A pass
# over t tokens with the running sequences' caches costs about
# sqrt((0.08 ms t)^2 + (14 ms)^2) + 3.4 ms + 0.03 us per cached token, a
# rough law read off the single-user rows (5,000-token prompt 400 ms, one
# decode step 17-19 ms), not the planner's step model.  The first 2 rounds
# of every user are dropped.  Prints measured / lockstep / random TTFT (ms,
# the front end's 5 ms included).
#   python3 tests/accuracy/closed_loop_play.py [jitter_ms] [spread]
import heapq
import json
import math
import os
import random
import sys

FRONT_END_MS = 5.0
BUDGET_TOKENS = 8192


def pass_ms(tokens, cached_tokens):
    return math.hypot(0.08 * tokens, 14.0) + 3.4 + 3e-5 * cached_tokens


def play(users, prompt, answer, jitter_ms, spread, randomised, rounds, seed=1):
    rnd = random.Random(seed)
    arrivals = []  # (time at the executor, user, time sent)

    def send(user, sent):
        delay = rnd.expovariate(1 / jitter_ms) if jitter_ms > 0 else 0.0
        heapq.heappush(arrivals, (sent + FRONT_END_MS + delay, user, sent))

    def answer_tokens():
        return max(2, round(answer * (1 + spread * (2 * rnd.random() - 1))))

    for user in range(users):
        send(user, rnd.random() * answer * 18.0 if randomised else 0.0)
    waiting, running = [], {}
    ttft = {user: [] for user in range(users)}
    now = 0.0
    while min(len(v) for v in ttft.values()) < rounds:
        while arrivals and arrivals[0][0] <= now:
            _, user, sent = heapq.heappop(arrivals)
            waiting.append([user, sent, prompt])
        if not running and not waiting:
            now = arrivals[0][0]
            continue
        room = BUDGET_TOKENS - len(running)
        chunks = []
        for w in waiting:
            if room <= 0:
                break
            take = min(w[2], room)
            chunks.append((w, take))
            room -= take
        prompt_tokens = sum(take for _, take in chunks)
        cached = sum(prompt + r[0] for r in running.values())
        now += pass_ms(len(running) + prompt_tokens, cached)
        for user in [u for u, r in running.items() if r[0] + 1 >= r[1]]:
            del running[user]
            send(user, now)
        for r in running.values():
            r[0] += 1
        for w, take in chunks:
            w[2] -= take
            if w[2] <= 0:
                waiting.remove(w)
                user, sent = w[0], w[1]
                ttft[user].append(now - sent + FRONT_END_MS)
                running[user] = [1, answer_tokens() if randomised else answer]
    kept = [t for v in ttft.values() for t in v[2:rounds]]
    return sum(kept) / len(kept)


def main():
    jitter_ms = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    spread = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    root = os.path.join(os.path.dirname(__file__), "..", "data", "serving_loadtests.json")
    with open(root) as f:
        cases = json.load(f)["cases"]
    print(f"jitter {jitter_ms} ms, random answers +-{spread:.0%}")
    print(f"{'case':48} {'measured':>9} {'lockstep':>9} {'random':>9}")
    for c in cases:
        users = c["load"].get("concurrency", 0)
        prompt, answer = c.get("prompt_tokens", 0), c.get("output_tokens", 0)
        if c["engine"] != "tensorrt_llm" or users < 2 or not 200 <= prompt <= 1000:
            continue
        if c["measured"]["ttft_ms"]["value"] > 1000:  # queued for the cache: saturated
            continue
        rounds = 5 if answer < 2000 else 4
        lock = play(users, prompt, answer, jitter_ms, 0.0, False, rounds)
        rand = play(users, prompt, answer, 0.0, spread, True, rounds)
        measured = c["measured"]["ttft_ms"]["value"]
        print(f"{c['id']:48} {measured:9.0f} {lock:9.0f} {rand:9.0f}")


if __name__ == "__main__":
    main()
