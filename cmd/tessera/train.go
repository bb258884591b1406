package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tessera-go/tessera/datasets/mnist"
	"github.com/tessera-go/tessera/internal/progress"
	"github.com/tessera-go/tessera/nn"
	"github.com/tessera-go/tessera/optim"
	"github.com/tessera-go/tessera/tensor"
)

// trainConfig is what `tessera train` was asked to do.
type trainConfig struct {
	device       string  // device name; "" picks the best
	model        string  // "mlp" or "cnn"
	epochs       int     // passes over the training samples
	batch        int     // samples per step
	lr           float64 // Adam's learning rate at the start of the cosine schedule
	seed         uint64  // initial weights and the order of the samples
	trainSamples int     // the first n training images only; 0 means all 60,000
	testSamples  int     // the first n test images only; 0 means all 10,000
	dataDir      string  // the MNIST files; "" finds them in the GoMNIST module
	save         string  // where to save the trained weights (.safetensors); "" does not save
	minAccuracy  float64 // fail below this test accuracy in percent; 0 never fails
}

// trainResult is what a run measured.
type trainResult struct {
	accuracy float64 // on the test images, in percent
	elapsed  time.Duration
}

// newModel builds one of the two MNIST models, seeded.
//
//	mlp: 784-256-128-10 with ReLU
//	cnn: two blocks of 5×5 convolution (16 then 32 channels, padding 2),
//	     ReLU and 2×2 max pooling, then one linear layer 1568-10
func newModel(name string, seed uint64) (nn.Module, error) {
	switch name {
	case "mlp":
		return nn.NewSequential(
			nn.NewLinear(784, 256, nn.Seed(seed)), nn.ReLU{},
			nn.NewLinear(256, 128, nn.Seed(seed+1)), nn.ReLU{},
			nn.NewLinear(128, mnist.Classes, nn.Seed(seed+2)),
		), nil
	case "cnn":
		pad2 := tensor.Conv2dOptions{Padding: [2]int{2, 2}}
		pool := nn.MaxPool2d{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}}
		return nn.NewSequential(
			nn.NewConv2d(1, 16, [2]int{5, 5}, pad2, nn.Seed(seed)), nn.ReLU{}, pool,
			nn.NewConv2d(16, 32, [2]int{5, 5}, pad2, nn.Seed(seed+1)), nn.ReLU{}, pool,
			nn.Flatten{},
			nn.NewLinear(32*7*7, mnist.Classes, nn.Seed(seed+2)),
		), nil
	}
	return nil, fmt.Errorf("unknown model %q (want mlp or cnn)", name)
}

// train trains a model on MNIST with Adam under a cosine learning-rate
// schedule, showing a progress line per epoch on progressOut, and reports
// on w. Its last line is "test accuracy: 97.83%", for scripts.
func train(w, progressOut io.Writer, cfg trainConfig) (trainResult, error) {
	var res trainResult
	if cfg.epochs < 1 || cfg.batch < 1 {
		return res, fmt.Errorf("epochs %d and batch %d must be at least 1", cfg.epochs, cfg.batch)
	}
	dev, err := openDevice(cfg.device)
	if err != nil {
		return res, err
	}
	var trainSet, testSet *mnist.Set
	if cfg.dataDir != "" {
		trainSet, testSet, err = mnist.Load(cfg.dataDir)
	} else {
		trainSet, testSet, err = mnist.LoadDefault()
	}
	if err != nil {
		return res, err
	}
	if trainSet, err = firstN(trainSet, cfg.trainSamples); err != nil {
		return res, err
	}
	if testSet, err = firstN(testSet, cfg.testSamples); err != nil {
		return res, err
	}
	model, err := newModel(cfg.model, cfg.seed)
	if err != nil {
		return res, err
	}
	if err := nn.To(model, dev); err != nil {
		return res, err
	}
	adam, err := optim.NewAdam(model.Parameters(), cfg.lr, optim.DefaultAdam())
	if err != nil {
		return res, err
	}
	steps := cfg.epochs * ((trainSet.N + cfg.batch - 1) / cfg.batch)
	schedule, err := optim.CosineAnnealing(cfg.lr, steps, optim.CosineOptions{})
	if err != nil {
		return res, err
	}
	opt := optim.Scheduled(adam, schedule)

	fmt.Fprintf(w, "tessera train: %s on MNIST (%d training, %d test images), %d parameters\n",
		cfg.model, trainSet.N, testSet.N, nn.NumParams(model))
	fmt.Fprintf(w, "device: %s (%s, %s); batch %d, Adam lr %g with cosine decay, seed %d\n",
		dev.Name(), dev.Info().Type, dev.Info().Adapter, cfg.batch, cfg.lr, cfg.seed)
	batchOpt := mnist.BatchOptions{Size: cfg.batch, Shuffle: true, Seed: cfg.seed, NCHW: cfg.model == "cnn", Normalize: true, Device: dev}
	start := time.Now()
	for epoch := range cfg.epochs {
		batchOpt.Epoch = epoch
		stats, err := trainEpoch(progressOut, model, opt, trainSet, batchOpt, fmt.Sprintf("epoch %d/%d", epoch+1, cfg.epochs))
		if err != nil {
			return res, err
		}
		acc, err := evaluate(model, testSet, batchOpt)
		if err != nil {
			return res, err
		}
		fmt.Fprintf(w, "epoch %d/%d: train loss %.4f, train accuracy %.2f%%, test accuracy %.2f%%, %.1f s (%.0f samples/s)\n",
			epoch+1, cfg.epochs, stats.loss, stats.accuracy, acc, stats.elapsed.Seconds(), float64(trainSet.N)/stats.elapsed.Seconds())
		res.accuracy = acc
	}
	res.elapsed = time.Since(start)
	if cfg.save != "" {
		if err := nn.Save(model, cfg.save); err != nil {
			return res, err
		}
		fmt.Fprintf(w, "saved the weights to %s\n", cfg.save)
	}
	fmt.Fprintf(w, "time: %.1f s on %s\n", res.elapsed.Seconds(), dev.Name())
	fmt.Fprintf(w, "test accuracy: %.2f%%\n", res.accuracy)
	if cfg.minAccuracy > 0 && res.accuracy < cfg.minAccuracy {
		return res, fmt.Errorf("test accuracy %.2f%% is below the required %.2f%%", res.accuracy, cfg.minAccuracy)
	}
	return res, nil
}

// firstN is the first n samples of s, or all of them when n is 0.
func firstN(s *mnist.Set, n int) (*mnist.Set, error) {
	if n == 0 {
		return s, nil
	}
	return s.Slice(0, min(n, s.N))
}

// epochStats summarises one pass over the training samples. Loss and
// accuracy are means over the steps whose values were read (every
// readEvery-th), so reading them does not stall the device every step.
type epochStats struct {
	loss, accuracy float64
	elapsed        time.Duration
}

// readEvery is how often a training step's loss and accuracy are read back
// for the progress line: reading waits for the device, so doing it every
// step would keep a GPU from running ahead.
const readEvery = 10

func trainEpoch(progressOut io.Writer, model nn.Module, opt optim.Optimizer, set *mnist.Set, batchOpt mnist.BatchOptions, label string) (epochStats, error) {
	var st epochStats
	nn.SetTraining(model, true)
	it := set.Batches(batchOpt)
	bar := progress.New(progressOut, it.Samples(), progress.Options{Label: label, Unit: "samples"})
	var lossSum, accSum float64
	var reads, step, done int
	for it.Next() {
		x, y := it.Batch()
		logits := model.Forward(x)
		loss := nn.CrossEntropy(logits, y)
		if err := loss.Backward(); err != nil {
			return st, err
		}
		if err := opt.Step(); err != nil {
			return st, err
		}
		opt.ZeroGrad()
		done += len(it.Indices())
		if step%readEvery == 0 {
			l, err := loss.Item()
			if err != nil {
				return st, err
			}
			acc, err := accuracy(logits, set, it.Indices())
			if err != nil {
				return st, err
			}
			lossSum, accSum, reads = lossSum+l, accSum+acc, reads+1
		}
		step++
		bar.Update(done, progress.Float("loss", lossSum/float64(max(reads, 1)), 4), progress.Percent("acc", accSum/float64(max(reads, 1))/100))
	}
	if err := it.Err(); err != nil {
		return st, err
	}
	st.loss, st.accuracy = lossSum/float64(max(reads, 1)), accSum/float64(max(reads, 1))
	bar.Finish(progress.Float("loss", st.loss, 4), progress.Percent("acc", st.accuracy/100))
	st.elapsed = bar.Elapsed()
	return st, nil
}

// evaluate is the model's accuracy in percent on every sample of set.
func evaluate(model nn.Module, set *mnist.Set, batchOpt mnist.BatchOptions) (float64, error) {
	nn.SetTraining(model, false)
	defer nn.SetTraining(model, true)
	batchOpt.Size, batchOpt.Shuffle, batchOpt.Epoch = 1000, false, 0
	it := set.Batches(batchOpt)
	correct := 0.0
	for it.Next() {
		x, _ := it.Batch()
		acc, err := accuracy(model.Forward(x), set, it.Indices())
		if err != nil {
			return 0, err
		}
		correct += acc / 100 * float64(len(it.Indices()))
	}
	if err := it.Err(); err != nil {
		return 0, err
	}
	return 100 * correct / float64(set.N), nil
}

// accuracy is the percentage of the samples idx of set whose label is the
// arg max of their row of logits.
func accuracy(logits *tensor.Tensor, set *mnist.Set, idx []int) (float64, error) {
	pred, err := tensor.ToSlice[int64](logits.Detach().ArgMax(-1))
	if err != nil {
		return 0, err
	}
	if len(pred) != len(idx) {
		return 0, fmt.Errorf("accuracy: %d predictions for %d samples", len(pred), len(idx))
	}
	hits := 0
	for k, i := range idx {
		if pred[k] == int64(set.Labels[i]) {
			hits++
		}
	}
	return 100 * float64(hits) / float64(len(idx)), nil
}
