"""Writes lrschedule.csv: the learning rate PyTorch's own schedulers give each
step, for the schedules Hogwild Lab implements (core/optim/lrschedule.h);
tst_lrschedule compares the engine's rates with it.

    python3 tests/data/make_lrschedule.py > tests/data/lrschedule.csv

Each case runs an SGD optimizer over `epochs` epochs of `steps` steps. The
epoch schedule (StepLR, CosineAnnealingLR(T_max=epochs)) is stepped after
each epoch; the warm-up (LinearLR(start_factor=1/N, total_iters=N-1)) on a
second optimizer after each step; the step's rate is the epoch rate times
the warm-up factor (the second optimizer's rate over its base).
"""
import sys

import torch

CASES = [
    # name, schedule, lr, epochs, steps per epoch, warm-up steps
    ("step", "step:2:0.5", 0.1, 7, 3, 0),
    ("step-tenth", "step:3:0.1", 0.2, 8, 2, 5),
    ("cosine", "cosine", 0.05, 6, 4, 0),
    ("cosine-warm", "cosine", 0.01, 5, 3, 10),
    ("warm-only", "constant", 0.1, 3, 5, 7),
    ("constant", "constant", 0.03, 2, 3, 0),
]


def epoch_scheduler(opt, schedule, epochs):
    if schedule.startswith("step:"):
        _, size, gamma = schedule.split(":")
        return torch.optim.lr_scheduler.StepLR(opt, step_size=int(size), gamma=float(gamma))
    if schedule == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs, eta_min=0)
    return None


def main():
    out = sys.stdout
    out.write("# made by tests/data/make_lrschedule.py with torch %s\n" % torch.__version__)
    out.write("case,schedule,lr,epochs,warmup,epoch,step,rate\n")
    for name, schedule, lr, epochs, steps, warmup in CASES:
        w = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([w], lr=lr)
        sched = epoch_scheduler(opt, schedule, epochs)
        wopt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
        wsched = (torch.optim.lr_scheduler.LinearLR(wopt, start_factor=1.0 / warmup,
                                                    end_factor=1.0, total_iters=warmup - 1)
                  if warmup > 1 else None)
        step = 0
        for epoch in range(1, epochs + 1):
            for _ in range(steps):
                rate = opt.param_groups[0]["lr"] * wopt.param_groups[0]["lr"]
                out.write("%s,%s,%r,%d,%d,%d,%d,%r\n" % (name, schedule, lr, epochs, warmup,
                                                         epoch, step, rate))
                opt.step()
                wopt.step()
                if wsched:
                    wsched.step()
                step += 1
            if sched:
                sched.step()


if __name__ == "__main__":
    main()
