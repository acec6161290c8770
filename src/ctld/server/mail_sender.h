#pragma once

// Carries out the controller's mail effects (--mail-type, ctld/core/job_mail.h):
// runs slurm.conf's MailProg as `MailProg -s SUBJECT RECIPIENT` with the
// job's variables, one mail at a time on a thread of its own, so that the
// state loop never waits for a mailer. Everything else goes on to `next`.

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ctld/server/state_loop.h"

namespace rota::ctld {

// MailProg as slurm.conf gives it, else Slurm's default: /bin/mail, or
// /usr/bin/mail where only that exists.
std::string MailProgram(const std::string& configured);

class MailSender : public EffectSink {
 public:
  // How long one MailProg may run before it is killed.
  static constexpr std::chrono::seconds kTimeout{120};

  MailSender(std::string program, std::unique_ptr<EffectSink> next);
  ~MailSender() override;  // Sends what is queued, then stops.

  void Carry(const Effects& effects) override;
  // After a reconfigure: the MailProg for mails from now on.
  void SetProgram(std::string program);

 private:
  void Run();

  const std::unique_ptr<EffectSink> next_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string program_;           // Guarded by mu_.
  std::deque<MailNotice> queue_;  // Guarded by mu_.
  bool stopping_ = false;         // Guarded by mu_.
  std::thread thread_;
};

}  // namespace rota::ctld
