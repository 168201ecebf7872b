"""PyTorch's examples/mnist_hogwild (main.py and train.py), on Fashion-MNIST.

The example's code, with four changes, each marked "bench:" below: its
Net imported from bench/mnist_hogwild_net.py (the same class, shared with
the test reference); FashionMNIST in place of MNIST, read from a folder
bench/cnn.py prepares from Debian's dataset-fashion-mnist (no download);
the training and the whole run timed; and one line "RESULT {json}" printed at the end (train_s:
from the first process's start to the last one's join; wall_s: from the
script's first line to the end of the test; accuracy: the test set's, %).
Its flags are the example's (--num-processes 2, --batch-size 64, --lr 0.01,
--momentum 0.5, --epochs 10, --seed 1), plus --data DIR.

    /usr/bin/python3 bench/mnist_hogwild_torch.py --data DIR [--epochs N]
"""
import time

T0 = time.monotonic()  # bench: the whole run's clock starts before the imports

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402

import torch  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torch.optim as optim  # noqa: E402
from torchvision import datasets, transforms  # noqa: E402


# bench: the example's Net, in its own file so tests/data/make_cnn_parity.py
# trains the same one
from mnist_hogwild_net import Net  # noqa: E402


# train.py
def train(rank, args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed + rank)
    train_loader = torch.utils.data.DataLoader(dataset, **dataloader_kwargs)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, device, train_loader, optimizer)


def test(args, model, device, dataset, dataloader_kwargs):
    torch.manual_seed(args.seed)
    test_loader = torch.utils.data.DataLoader(dataset, **dataloader_kwargs)
    return test_epoch(model, device, test_loader)


def train_epoch(epoch, args, model, device, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        output = model(data.to(device))
        loss = F.nll_loss(output, target.to(device))
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('{}\tTrain Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                pid, epoch, batch_idx * len(data), len(data_loader.dataset),
                100. * batch_idx / len(data_loader), loss.item()), flush=True)
            if args.dry_run:
                break


def test_epoch(model, device, data_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in data_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target.to(device), reduction='sum').item()
            pred = output.max(1)[1]
            correct += pred.eq(target.to(device)).sum().item()
    test_loss /= len(data_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(data_loader.dataset),
        100. * correct / len(data_loader.dataset)))
    return 100. * correct / len(data_loader.dataset)  # bench: the accuracy, for RESULT


# main.py
parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
parser.add_argument('--batch-size', type=int, default=64, metavar='N')
parser.add_argument('--test-batch-size', type=int, default=1000, metavar='N')
parser.add_argument('--epochs', type=int, default=10, metavar='N')
parser.add_argument('--lr', type=float, default=0.01, metavar='LR')
parser.add_argument('--momentum', type=float, default=0.5, metavar='M')
parser.add_argument('--seed', type=int, default=1, metavar='S')
parser.add_argument('--log-interval', type=int, default=10, metavar='N')
parser.add_argument('--num-processes', type=int, default=2, metavar='N')
parser.add_argument('--cuda', action='store_true', default=False)
parser.add_argument('--mps', action='store_true', default=False)
parser.add_argument('--save_model', action='store_true', default=False)
parser.add_argument('--dry-run', action='store_true', default=False)
parser.add_argument('--data', required=True)  # bench: the prepared Fashion-MNIST folder

if __name__ == '__main__':
    args = parser.parse_args()

    use_cuda = args.cuda and torch.cuda.is_available()
    use_mps = args.mps and torch.backends.mps.is_available()
    if use_cuda:
        device = torch.device("cuda")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")

    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,))
    ])
    # bench: FashionMNIST from the prepared folder, in place of MNIST('../data', download=True)
    dataset1 = datasets.FashionMNIST(args.data, train=True, download=False, transform=transform)
    dataset2 = datasets.FashionMNIST(args.data, train=False, transform=transform)
    kwargs = {'batch_size': args.batch_size,
              'shuffle': True}
    if use_cuda:
        kwargs.update({'num_workers': 1,
                       'pin_memory': True,
                       })

    torch.manual_seed(args.seed)
    mp.set_start_method('spawn', force=True)

    model = Net().to(device)
    model.share_memory()  # gradients are allocated lazily, so they are not shared here

    t_train = time.monotonic()  # bench
    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, device,
                                           dataset1, kwargs))
        # We first train the model across `num_processes` processes
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    train_s = time.monotonic() - t_train  # bench

    if args.save_model:
        torch.save(model.state_dict(), "MNIST_hogwild.pt")

    # Once training is complete, we can test the model
    accuracy = test(args, model, device, dataset2, kwargs)
    print("RESULT " + json.dumps({  # bench
        "train_s": train_s, "wall_s": time.monotonic() - T0, "accuracy": accuracy,
        "epochs": args.epochs, "processes": args.num_processes,
        "samples": args.num_processes * args.epochs * len(dataset1),
        "torch": torch.__version__, "threads": torch.get_num_threads()}), flush=True)
