//===- RegisterAll.cpp - register every Kiln pass -----------------------------===//
#include "passes/RegisterAll.h"
#include "passes/Graph/Passes.h"
#include "passes/Lower/Passes.h"

void kiln::registerAllKilnPasses() {
  kiln::graph::registerKilnGraphPasses();
  kiln::lower::registerKilnLowerPasses();
}
