#include "noded/pmi/pmix_step_layout.h"

#include <gtest/gtest.h>

namespace rota::noded {
namespace {

wire::PmixSetup TwoNodes(uint32_t here) {
  wire::PmixSetup setup;
  setup.set_job_id(12);
  setup.set_step_id(3);
  for (const char* node : {"gpu1", "gpu2"}) setup.add_nodes(node);
  setup.add_tasks_per_node(3);
  setup.add_tasks_per_node(2);
  setup.set_node_index(here);
  return setup;
}

TEST(PmixStepLayoutTest, RanksGoNodeByNode) {
  Result<PmixStepLayout> layout = PmixStepLayout::From(TwoNodes(1));
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->nspace(), "slurm.pmix.12.3");
  EXPECT_EQ(layout->size(), 5u);
  EXPECT_EQ(layout->NodeList(), "gpu1,gpu2");
  EXPECT_EQ(layout->ProcessMap(), "0,1,2;3,4");
  EXPECT_EQ(layout->LocalPeers(), "3,4");
  EXPECT_EQ(layout->local_size(), 2u);
  EXPECT_EQ(layout->local_leader(), 3u);
  EXPECT_EQ(layout->NodeOf(0), 0u);
  EXPECT_EQ(layout->NodeOf(2), 0u);
  EXPECT_EQ(layout->NodeOf(3), 1u);
  EXPECT_EQ(layout->NodeOf(4), 1u);
  EXPECT_EQ(layout->LocalRankOf(2), 2u);
  EXPECT_EQ(layout->LocalRankOf(4), 1u);
  EXPECT_EQ(PmixStepLayout::From(TwoNodes(0))->LocalPeers(), "0,1,2");
}

TEST(PmixStepLayoutTest, RanksDealtCyclically) {
  wire::PmixSetup setup = TwoNodes(1);
  for (uint32_t id : {0, 2, 4, 1, 3}) setup.add_task_ids(id);
  Result<PmixStepLayout> layout = PmixStepLayout::From(setup);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->ProcessMap(), "0,2,4;1,3");
  EXPECT_EQ(layout->LocalPeers(), "1,3");
  EXPECT_EQ(layout->local_leader(), 1u);
  EXPECT_EQ(layout->local_ranks(), (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(layout->NodeOf(4), 0u);
  EXPECT_EQ(layout->LocalRankOf(4), 2u);
  EXPECT_EQ(layout->NodeOf(3), 1u);
  EXPECT_EQ(layout->LocalRankOf(3), 1u);
  setup.set_task_ids(4, 2);  // Rank 2 twice
  EXPECT_FALSE(PmixStepLayout::From(setup).ok());
}

TEST(PmixStepLayoutTest, RefusesWhatCannotBeAStep) {
  wire::PmixSetup setup = TwoNodes(2);
  EXPECT_FALSE(PmixStepLayout::From(setup).ok());  // No third node
  setup = TwoNodes(0);
  setup.add_tasks_per_node(1);
  EXPECT_FALSE(PmixStepLayout::From(setup).ok());  // Counts for three nodes
  setup = TwoNodes(0);
  setup.set_tasks_per_node(1, 0);
  EXPECT_FALSE(PmixStepLayout::From(setup).ok());  // A node without tasks
  EXPECT_FALSE(PmixStepLayout::From(wire::PmixSetup()).ok());
}

}  // namespace
}  // namespace rota::noded
